-- diff_locality.lua -- the edits of bench/diff_locality.sh, appended to a
-- copy of a sample wrapped as `local m = (function() ... end)()` with EDIT
-- set before it. Sandboxed like any mechanism file: plain Lua on the table.
local function is_eq(c)
  local t = c.type
  return t == "ball" or t == "hinge" or t == "rod" or t == "prismatic" or t == "cylindrical"
      or t == "universal" or t == "weld"
end
local function referenced(name)
  for _, c in ipairs(m.constraints) do
    for k, v in pairs(c) do if k ~= "name" and v == name then return true end end
  end
  return false
end
local function rename_refs(old, new)
  for _, c in ipairs(m.constraints) do
    for k, v in pairs(c) do if k ~= "name" and k ~= "type" and v == old then c[k] = new end end
  end
  if m.settings then
    for k, v in pairs(m.settings) do if v == old then m.settings[k] = new end end
  end
end
local function dynamic_from(i)
  local n = #m.bodies
  for k = 0, n - 1 do
    local b = m.bodies[(i - 1 + k) % n + 1]
    if not b.fixed then return b end
  end
end
local function add_part(at_body, at_cons)
  local ref = dynamic_from(at_body > #m.bodies and #m.bodies or at_body)
  local body = {}
  for k, v in pairs(ref) do body[k] = v end
  body.name = "extra_body"
  local joint = { name = "extra_joint", type = "ball", a = ref.name, b = "extra_body",
                  anchor = ref.pos or { 0, 0, 0 } }
  table.insert(m.bodies, at_body, body)
  table.insert(m.constraints, at_cons, joint)
end
local nb, nc = #m.bodies, #m.constraints
local mid_b, mid_c = nb // 2 + 1, nc // 2 + 1
if EDIT == "rename" then
  local b = dynamic_from(mid_b)
  local old = b.name
  b.name = old .. "_renamed"
  rename_refs(old, b.name)
elseif EDIT == "rename_constraint" then
  local i = mid_c
  while i < nc and not is_eq(m.constraints[i]) do i = i + 1 end
  local c = m.constraints[i]
  local old = c.name
  c.name = old .. "_renamed"
  rename_refs(old, c.name)
elseif EDIT == "swap" then
  local i = mid_c
  while i < nc and not (is_eq(m.constraints[i]) and is_eq(m.constraints[i + 1])) do i = i + 1 end
  m.constraints[i], m.constraints[i + 1] = m.constraints[i + 1], m.constraints[i]
elseif EDIT == "swap_bodies" then
  local i = mid_b
  m.bodies[i - 1], m.bodies[i] = m.bodies[i], m.bodies[i - 1]
elseif EDIT == "mass" then
  local b = dynamic_from(mid_b)
  if b.mass then b.mass = b.mass * 2 end
elseif EDIT == "add_end" then
  add_part(nb + 1, nc + 1)
elseif EDIT == "add_middle" then
  add_part(mid_b, mid_c)
elseif EDIT == "remove" then
  local pick
  for k = 0, nc - 1 do
    local c = m.constraints[(mid_c - 1 + k) % nc + 1]
    if is_eq(c) and not referenced(c.name) then pick = (mid_c - 1 + k) % nc + 1; break end
  end
  table.remove(m.constraints, pick)
elseif EDIT == "remove_part" then
  -- the inverse of add_end/add_middle: a body that one constraint alone
  -- holds (and nothing else names: no other constraint names that one, no
  -- setting names the body), the nearest to the middle, with its constraint
  local function names(c, name)
    for k, v in pairs(c) do if k ~= "name" and v == name then return true end end
    return false
  end
  local pick_b, pick_c
  for k = 0, nb - 1 do
    local i = (mid_b - 1 + k) % nb + 1
    local b, n, ci = m.bodies[i], 0, nil
    for j, c in ipairs(m.constraints) do
      if names(c, b.name) then n, ci = n + 1, j end
    end
    local named = false
    for _, v in pairs(m.settings or {}) do named = named or v == b.name end
    if n == 1 and not named and not referenced(m.constraints[ci].name) then
      pick_b, pick_c = i, ci
      break
    end
  end
  if not pick_b then error("remove_part: no body that one constraint alone holds") end
  table.remove(m.constraints, pick_c)
  table.remove(m.bodies, pick_b)
elseif EDIT ~= "none" then
  error("unknown edit " .. tostring(EDIT))
end
