-- The status line snippet of docs/editors/neovim.md in Neovim 0.11, headless.
-- nvim --headless -u NONE -c 'luafile neovim_status.lua'
-- env: PY (python running the server), SNIPPET (the snippet as a file), OUT (result JSON),
-- FILES (JSON list of files to open, in order); cwd = the workspace.
local res = { lines = {} }
local ok, err = pcall(function()
  vim.cmd('filetype on') -- -u NONE: a user's config has it
  dofile(vim.env.SNIPPET)
  vim.lsp.config('torch_logs', {
    cmd = { vim.env.PY, '-m', 'torch_logs_lsp.server' },
    filetypes = { 'sh', 'conf', 'dotenv' },
    root_markers = { '.git' },
  })
  vim.lsp.enable('torch_logs')
  for _, file in ipairs(vim.fn.json_decode(vim.env.FILES)) do
    vim.cmd('edit ' .. file)
    local buf = vim.api.nvim_get_current_buf()
    -- the status line as drawn, once the answer came (or 15 s)
    vim.wait(15000, function() return TorchLogsStatus() ~= '' end, 20)
    res.lines[file] = vim.api.nvim_eval_statusline(vim.o.statusline, { maxwidth = 200 }).str
    res.attached = (res.attached or 0) + #vim.lsp.get_clients({ bufnr = buf })
  end
end)
res.ok, res.error = ok, err and tostring(err) or nil
local fh = io.open(vim.env.OUT, 'w')
fh:write(vim.fn.json_encode(res))
fh:close()
vim.lsp.stop_client(vim.lsp.get_clients())
vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 20)
vim.cmd(ok and 'qall!' or 'cquit!')
