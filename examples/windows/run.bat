@echo off
rem Train with torch logs on Windows (cmd.exe). Check: torch-logs check --torch-version 2.8 run.bat
setlocal
set TORCH_LOGS="+schedule,+inductor"
python train.py
set TORCH_LOGS=dynamo 
python train.py
set "TORCH_LOGS=+dynamo,guards" & set TORCH_LOGS_OUT=%TEMP%\torch.log
python train.py
endlocal
