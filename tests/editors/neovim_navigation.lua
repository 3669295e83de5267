-- Go to definition and find references in Neovim 0.11's built-in LSP client, headless.
-- nvim --headless -u NONE -c 'luafile neovim_navigation.lua'
-- env: PY (python running the server), OUT (result JSON), FILE (the document), LINE/COL
-- (0-based cursor, col in bytes), INIT (JSON initializationOptions); cwd = the workspace.
local res = { nvim = tostring(vim.version()) }
local ok, err = pcall(function()
  -- docs/editors/neovim.md: the packaged registry's read-only torch-logs: documents
  vim.api.nvim_create_autocmd("BufReadCmd", {
    pattern = "torch-logs:/*",
    callback = function(args)
      local client = vim.lsp.get_clients({ name = "torch_logs" })[1]
      if not client then return end
      local uri = vim.api.nvim_buf_get_name(args.buf)
      local answer = client:request_sync("torchLogs/registry", { uri = uri }, 5000, args.buf)
      local text = answer and answer.result and answer.result.text or ""
      vim.api.nvim_buf_set_lines(args.buf, 0, -1, false, vim.split(text, "\n", { plain = true }))
      vim.bo[args.buf].buftype = "nofile"
      vim.bo[args.buf].modifiable = false
      vim.bo[args.buf].filetype = "python"
    end,
  })
  vim.cmd('edit ' .. vim.env.FILE)
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start({
    name = 'torch_logs',
    cmd = { vim.env.PY, '-m', 'torch_logs_lsp.server' },
    root_dir = vim.fn.getcwd(),
    init_options = vim.fn.json_decode(vim.env.INIT),
  }, { bufnr = buf })
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 10), 'no diagnostics')
  res.encoding = client.offset_encoding
  vim.api.nvim_win_set_cursor(0, { tonumber(vim.env.LINE) + 1, tonumber(vim.env.COL) })
  local p = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local function req(method, params, timeout)
    local r = vim.lsp.buf_request_sync(buf, method, params, timeout)
    assert(r and r[id], method .. ' timed out')
    assert(not r[id].err, method .. ' error: ' .. vim.inspect(r[id].err))
    return r[id].result
  end
  local defs = req('textDocument/definition', p, 10000)
  res.definition = defs
  -- jump as vim.lsp.buf.definition() does: the document (a torch-logs: one is read by the
  -- autocmd above), the cursor at the range's start
  vim.lsp.util.show_document(defs[1], client.offset_encoding, { focus = true })
  local cursor = vim.api.nvim_win_get_cursor(0)
  res.jumped = {
    name = vim.api.nvim_buf_get_name(0),
    row = cursor[1] - 1,
    col = cursor[2],
    line = vim.api.nvim_get_current_line(),
  }
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { tonumber(vim.env.LINE) + 1, tonumber(vim.env.COL) })
  p = vim.lsp.util.make_position_params(0, client.offset_encoding)
  p.context = { includeDeclaration = true }
  local refs = req('textDocument/references', p, 120000) or {}
  -- what the quickfix list would show: Neovim reads each file's line itself
  res.references = vim.tbl_map(function(i)
    return { filename = i.filename, lnum = i.lnum, col = i.col, text = i.text }
  end, vim.lsp.util.locations_to_items(refs, client.offset_encoding))
end)
res.ok, res.error = ok, err and tostring(err) or nil
local fh = io.open(vim.env.OUT, 'w')
fh:write(vim.fn.json_encode(res))
fh:close()
vim.lsp.stop_client(vim.lsp.get_clients())
vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 20)
vim.cmd(ok and 'qall!' or 'cquit!')
