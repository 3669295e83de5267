@echo off
rem torch-logs: torch=2.8
set TORCH_LOGS="+schedule,+inductor"
python train.py
set TORCH_LOGS=dynamo 
python train.py
