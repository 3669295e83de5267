%env TORCH_LOGS=a
