# PowerShell: torch-logs reads $env: assignments, Set-Item/New-Item on Env: and
# [Environment]::SetEnvironmentVariable (the env: drive and the name in any case).
$env:TORCH_LOGS = "+dynamo,guards"
python train.py

$Env:TORCH_LOGS = 'aot_g'
python train.py
