-- Drive Neovim's built-in LSP client against torch-logs-lsp, headless.
-- nvim --headless -u NONE -c 'luafile neovim_check.lua'
-- env: PY (python running the server), OUT (result JSON), SPECS (JSON list of
-- {file, line, col} 0-based cursor positions, col in bytes); cwd = the workspace.
-- Works on Neovim 0.7 (start_client, utf-16) and 0.11 (vim.lsp.start, offers utf-8).
local v = vim.version()
local res = { nvim = ('%d.%d.%d'):format(v.major, v.minor, v.patch), files = {} }
local specs = vim.fn.json_decode(vim.env.SPECS)
local ok, err = pcall(function()
  local cfg = {
    name = 'torch_logs',
    cmd = { vim.env.PY, '-m', 'torch_logs_lsp.server' },
    root_dir = vim.fn.getcwd(),
  }
  for _, spec in ipairs(specs) do
    local t0 = vim.loop.hrtime()
    vim.cmd('edit ' .. spec.file)
    local buf = vim.api.nvim_get_current_buf()
    local id
    if vim.lsp.start then
      id = vim.lsp.start(cfg, { bufnr = buf })
    else
      id = res.client_id or vim.lsp.start_client(cfg)
      vim.lsp.buf_attach_client(buf, id)
    end
    res.client_id = id
    local client = vim.lsp.get_client_by_id(id)
    assert(vim.wait(15000, function()
      return client.initialized ~= false and #vim.diagnostic.get(buf) > 0
    end, 10), 'no diagnostics for ' .. spec.file)
    local f = { first_diagnostics_ms = (vim.loop.hrtime() - t0) / 1e6, encoding = client.offset_encoding }
    f.diagnostics = vim.tbl_map(function(d)
      return { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code, message = d.message }
    end, vim.diagnostic.get(buf))
    vim.api.nvim_win_set_cursor(0, { spec.line + 1, spec.col })
    local p = vim.lsp.util.make_position_params(0, client.offset_encoding)
    local function req(method)
      local r = vim.lsp.buf_request_sync(buf, method, p, 5000)
      assert(r and r[id], method .. ' timed out')
      assert(not r[id].err, method .. ' error: ' .. vim.inspect(r[id].err))
      return r[id].result
    end
    local c = req('textDocument/completion')
    f.completion = vim.tbl_map(function(i)
      return { label = i.label, range = i.textEdit and i.textEdit.range }
    end, (c and (c.items or c)) or {})
    local h = req('textDocument/hover')
    f.hover = h and h.contents
    res.files[spec.file] = f
  end
end)
res.ok, res.error = ok, err and tostring(err) or nil
local fh = io.open(vim.env.OUT, 'w')
fh:write(vim.fn.json_encode(res))
fh:close()
local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)
vim.lsp.stop_client(clients())
vim.wait(3000, function() return #clients() == 0 end, 20)
vim.cmd(ok and 'qall!' or 'cquit!')
