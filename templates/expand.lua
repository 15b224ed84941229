-- expand.lua -- the template expander: the one path every generated line
-- goes through (STYLE.md point 14). gen/template.c loads it and calls
-- renderer(source, data); gen/emit.c builds `data`.
--
-- A template is a C-shaped text file with embedded Lua:
--   * a line whose first non-blank characters are `--%` is a Lua statement
--     (the rest of the line): loops, conditionals, local helper functions;
--   * every other line is output text, in which `$(expr)` is replaced by the
--     value of the Lua expression -- an integer, a string, or a float printed
--     round-trip exact (%.17g); anything else is an error -- and `$$` is a
--     literal `$`.
-- A template compiles to one Lua chunk with exactly one line per template
-- line, so Lua's own error positions, syntax and runtime alike, are
-- "template:line". Text lines inside a function defined by `--%` lines are
-- output when the function is called: that is how templates write macros.
--
-- Templates only format. Their data `P` is frozen: assigning is an error,
-- reading a missing field is an error (a typo cannot silently print
-- nothing), and pairs() is refused because its order is not deterministic --
-- lists are iterated with ipairs. Every decision (order, offsets, function
-- boundaries, the kernels needed) was made in C.
--
-- The environment of a template: P; include(name [, arg]), which expands
-- another template in place (it sees `arg` as ARG); the formatting helpers
-- below (rows, join, wrap, pad, cstr, ctext, origin, fmt, value); and the
-- safe standard functions. After expansion, one final pass strips trailing
-- blanks, collapses runs of blank lines into one and ends the text with a
-- single newline.

local M = {}

local format, concat = string.format, table.concat

---- frozen views ---------------------------------------------------------------

local raw_of = setmetatable({}, { __mode = "k" }) -- view -> the table it shows

local function freeze(t, path)
  local cache, view = {}, {}
  setmetatable(view, {
    __index = function(_, k)
      local v = t[k]
      if v == nil then
        if math.type(k) ~= "integer" then error(format("no field '%s' in %s", tostring(k), path), 2) end
        return nil
      end
      if type(v) ~= "table" then return v end
      local f = cache[k]
      if f == nil then
        f = freeze(v, math.type(k) == "integer" and format("%s[%d]", path, k) or path .. "." .. tostring(k))
        cache[k] = f
      end
      return f
    end,
    __newindex = function(_, k)
      error(format("%s is read-only (assignment to '%s')", path, tostring(k)), 2)
    end,
    __len = function() return #t end,
    __pairs = function()
      error(format("pairs(%s): iterate with ipairs (pairs order is not deterministic)", path), 3)
    end,
    __metatable = false,
  })
  raw_of[view] = t
  return view
end

local function raw(t) return raw_of[t] or t end

---- formatting helpers (available to templates) ----------------------------------

-- A Lua value as C source text: integers in decimal, floats round-trip exact.
local function value(v)
  local mt = math.type(v)
  if mt == "integer" then return format("%d", v) end
  if mt == "float" then return format("%.17g", v) end
  if type(v) == "string" then return v end
  return nil
end

-- A C string literal.
local function cstr(s)
  return '"' .. s:gsub('[%c"\\\128-\255]', function(c)
    if c == '"' or c == "\\" then return "\\" .. c end
    return format("\\%03o", c:byte())
  end) .. '"'
end

-- Text that is safe inside a C comment.
local function ctext(s)
  return (s:gsub("%*/", "* /"):gsub("/%*", "/ *"):gsub("%c", "?"))
end

-- The origin comment of a statement (the pivot, block or constraint that
-- produced it, as C named it): " /* text */", or "" for no text.
local function origin(text)
  if text == nil or text == "" then return "" end
  return " /* " .. ctext(text) .. " */"
end

-- Left-justified in a field of width w.
local function pad(s, w) return format("%-" .. w .. "s", value(s)) end

-- The items of a list (formatted by fn, default value) joined by sep.
local function join(list, sep, fn)
  local out, t = {}, raw(list)
  for i = 1, #t do out[i] = (fn or value)(t[i]) end
  return concat(out, sep)
end

-- The items of a list as initializer lines: `per` items a line, each line
-- starting with indent, every item followed by a comma; no final newline.
local function rows(list, per, indent, fn)
  local t, lines, line = raw(list), {}, {}
  for i = 1, #t do
    line[#line + 1] = (fn or value)(t[i]) .. ","
    if #line == per or i == #t then
      lines[#lines + 1] = indent .. concat(line, " ")
      line = {}
    end
  end
  return concat(lines, "\n")
end

-- The items of a list joined by sep into lines of at most width characters
-- (an item longer than that gets a line of its own; sep's trailing blanks
-- become the line break or one space); lines after the first
-- start with indent. No final newline.
local function wrap(list, sep, width, indent)
  local t, lines, line = raw(list), {}, nil
  for i = 1, #t do
    local item = value(t[i]) .. (i < #t and sep:gsub("%s+$", "") or "")
    if line and #line + 1 + #item <= width then
      line = line .. " " .. item
    else
      if line then lines[#lines + 1] = line end
      line = item
    end
  end
  if line then lines[#lines + 1] = line end
  return concat(lines, "\n" .. indent)
end

---- compiling templates -------------------------------------------------------------

-- The Lua code of one text line: _o(literal, _v((expr), "expr"), ...).
local function text_line(chunk, ln, line)
  local parts, lit, pos, n = {}, {}, 1, #line
  local function flush()
    if #lit > 0 then parts[#parts + 1] = format("%q", concat(lit)) end
    lit = {}
  end
  while pos <= n do
    local s = line:find("$", pos, true)
    if not s then
      lit[#lit + 1] = line:sub(pos)
      break
    end
    lit[#lit + 1] = line:sub(pos, s - 1)
    local c = line:sub(s + 1, s + 1)
    if c == "$" then
      lit[#lit + 1] = "$"
      pos = s + 2
    elseif c == "(" then
      local depth, i, quote = 1, s + 2, nil
      while i <= n do
        local ch = line:sub(i, i)
        if quote then
          if ch == "\\" then i = i + 1 elseif ch == quote then quote = nil end
        elseif ch == '"' or ch == "'" then
          quote = ch
        elseif ch == "(" then
          depth = depth + 1
        elseif ch == ")" then
          depth = depth - 1
          if depth == 0 then break end
        end
        i = i + 1
      end
      if depth ~= 0 then error(format("%s:%d: unterminated $( in template text", chunk, ln), 0) end
      local expr = line:sub(s + 2, i - 1)
      if expr:match("^%s*$") then error(format("%s:%d: empty $() in template text", chunk, ln), 0) end
      flush()
      parts[#parts + 1] = format("_v((%s), %q)", expr, expr)
      pos = i + 1
    else
      lit[#lit + 1] = "$"
      pos = s + 1
    end
  end
  flush()
  return "_o(" .. concat(parts, ", ") .. ")"
end

-- Compiles template text into function(env, arg) that writes through env._o.
local function compile(chunk, src)
  if src:sub(-1) ~= "\n" then src = src .. "\n" end
  local code, ln = {}, 0
  for line in src:gmatch("([^\n]*)\n") do
    ln = ln + 1
    local stmt = line:match("^%s*%-%-%%(.*)$")
    code[ln] = stmt or text_line(chunk, ln, line)
  end
  code[1] = "local _ENV, ARG = ...; " .. (code[1] or "")
  local f, err = load(concat(code, "\n"), "=" .. chunk, "t")
  if not f then error(err, 0) end
  return f
end

-- The final pass over a rendered text.
local function finish(s)
  s = s:gsub("[ \t]+\n", "\n")
  s = s:gsub("\n\n\n+", "\n\n")
  s = s:gsub("^\n+", "")
  s = s:gsub("\n*$", "\n")
  return s
end

---- rendering -------------------------------------------------------------------

local MAX_DEPTH = 32

-- renderer(source, data) -> render(name) -> text. source(name) returns the
-- template's text and chunk name (or nil and a message).
function M.renderer(source, data)
  local P = freeze(data, "P")
  local compiled = {}

  local function get(name, level)
    local f = compiled[name]
    if f then return f end
    local text, chunk = source(name)
    if not text then error(chunk, level) end
    f = compile(chunk, text)
    compiled[name] = f
    return f
  end

  return function(name)
    local buf, nbuf, depth = {}, 0, 0
    local env = {}
    env._o = function(...)
      for i = 1, select("#", ...) do
        nbuf = nbuf + 1
        buf[nbuf] = select(i, ...)
      end
      nbuf = nbuf + 1
      buf[nbuf] = "\n"
    end
    env._v = function(v, src)
      local s = value(v)
      if s == nil then
        error(format("$(%s) is %s, not a string or a number", src, v == nil and "nil" or "a " .. type(v)), 2)
      end
      return s
    end
    env.include = function(other, arg)
      if depth >= MAX_DEPTH then error(format("include of '%s': templates nested too deep", other), 2) end
      local f = get(other, 3)
      depth = depth + 1
      f(env, arg)
      depth = depth - 1
    end
    env.P, env.rows, env.join, env.wrap, env.pad, env.cstr, env.ctext = P, rows, join, wrap, pad, cstr, ctext
    env.fmt, env.value, env.origin = format, value, origin
    for _, k in ipairs({ "assert", "error", "ipairs", "pairs", "select", "tonumber", "tostring", "type",
                         "math", "string", "table" }) do
      env[k] = _G[k]
    end
    get(name, 0)(env, nil)
    return finish(concat(buf, "", 1, nbuf))
  end
end

return M
