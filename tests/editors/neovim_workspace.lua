-- Workspace diagnostics in Neovim's built-in LSP client, headless: one file is opened, and
-- the findings of a file never opened must reach vim.diagnostic too.
-- nvim --headless -u NONE -c 'luafile neovim_workspace.lua'
-- env: PY (python running the server), OUT (result JSON); cwd = the workspace, holding
-- run.sh (opened) and never_opened.env.
local v = vim.version()
local res = { nvim = ('%d.%d.%d'):format(v.major, v.minor, v.patch) }
local ok, err = pcall(function()
  local cfg = {
    name = 'torch_logs',
    cmd = { vim.env.PY, '-m', 'torch_logs_lsp.server' },
    root_dir = vim.fn.getcwd(),
  }
  vim.cmd('edit run.sh')
  local buf = vim.api.nvim_get_current_buf()
  local id
  if vim.lsp.start then
    id = vim.lsp.start(cfg, { bufnr = buf })
  else
    id = vim.lsp.start_client(cfg)
    vim.lsp.buf_attach_client(buf, id)
  end
  local client = vim.lsp.get_client_by_id(id)
  local other = vim.fn.fnamemodify('never_opened.env', ':p')
  assert(vim.wait(30000, function()
    local b = vim.fn.bufnr(other)
    return #vim.diagnostic.get(buf) > 0 and b ~= -1 and #vim.diagnostic.get(b) > 0
  end, 20), 'no diagnostics for run.sh and never_opened.env')
  local b = vim.fn.bufnr(other)
  res.unopened_loaded = vim.api.nvim_buf_is_loaded(b)
  res.unopened = vim.tbl_map(function(d)
    return { lnum = d.lnum, col = d.col, code = d.code }
  end, vim.diagnostic.get(b))
  res.open = vim.tbl_map(function(d)
    return { lnum = d.lnum, col = d.col, code = d.code }
  end, vim.diagnostic.get(buf))
  res.pull_offered = client.server_capabilities.diagnosticProvider ~= nil
  local ok_ns, ns = pcall(vim.lsp.diagnostic.get_namespace, id, true)
  res.open_pulled = ok_ns and #vim.diagnostic.get(buf, { namespace = ns }) or -1
end)
res.ok, res.error = ok, err and tostring(err) or nil
local fh = io.open(vim.env.OUT, 'w')
fh:write(vim.fn.json_encode(res))
fh:close()
local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)
vim.lsp.stop_client(clients())
vim.wait(3000, function() return #clients() == 0 end, 20)
vim.cmd(ok and 'qall!' or 'cquit!')
