-- Neovim 0.11's inlay hints (vim.lsp.inlay_hint) from torch-logs-lsp, headless.
-- nvim --headless -u NONE -c 'luafile neovim_inlay.lua'
-- env: PY (python running the server), OUT (result JSON), FILE (the file to open, in cwd).
local res = {}
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.env.FILE)
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start({
    name = 'torch_logs',
    cmd = { vim.env.PY, '-m', 'torch_logs_lsp.server' },
    root_dir = vim.fn.getcwd(),
  }, { bufnr = buf })
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(15000, function() return client.initialized ~= false and #vim.diagnostic.get(buf) > 0 end, 10),
    'no diagnostics')
  res.encoding = client.offset_encoding
  res.provider = client.server_capabilities.inlayHintProvider ~= nil
  vim.lsp.inlay_hint.enable(true, { bufnr = buf })
  assert(vim.wait(15000, function() return #vim.lsp.inlay_hint.get({ bufnr = buf }) > 0 end, 10), 'no inlay hints')
  res.hints = vim.tbl_map(function(h)
    local label = h.inlay_hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(p) return p.value end, label))
    end
    return { line = h.inlay_hint.position.line, character = h.inlay_hint.position.character, label = label }
  end, vim.lsp.inlay_hint.get({ bufnr = buf }))
  -- what the window shows: the hints' virtual text (drawn on redraw)
  vim.cmd('redraw')
  res.shown = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      table.insert(res.shown, { row = m[2], col = m[3], text = chunk[1] })
    end
  end
end)
res.ok, res.error = ok, err and tostring(err) or nil
local fh = io.open(vim.env.OUT, 'w')
fh:write(vim.fn.json_encode(res))
fh:close()
vim.lsp.stop_client(vim.lsp.get_clients())
vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 20)
vim.cmd(ok and 'qall!' or 'cquit!')
