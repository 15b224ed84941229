SEED = 42
-- random_mechanism.lua: a random valid mechanism for the generated-code
-- tests and the sanitizer sweep (tests/random_sweep.sh). The Makefile
-- prepends "SEED = k" to make each variant (math.random is seeded by the
-- sandbox; math.randomseed(SEED) picks the variant). Body graphs of three
-- shapes -- a random tree plus loop-closing constraints, a chain closed
-- into rings, or shattered hubs (bodies carrying more than the shattering
-- threshold) -- with constraints to the world and to fixed bodies; every
-- equality type and every inequality type (limits, ropes, motors); random
-- poses (unit quaternions), masses spanning four decades (mass ratios up to
-- 1e4) and shapes; a ground plane, contacts and stabilization now and then.
math.randomseed(SEED or 1)
local R = math.random
local function U(a, b) return a + (b - a) * R() end
local function unit()
  local x, y, z
  repeat x, y, z = U(-1, 1), U(-1, 1), U(-1, 1) until x * x + y * y + z * z > 0.01
  local n = math.sqrt(x * x + y * y + z * z)
  return { x / n, y / n, z / n }
end
local function cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end
local function perpendicular(a)
  local c
  repeat c = cross(a, unit()) until c[1] * c[1] + c[2] * c[2] + c[3] * c[3] > 0.01
  return c
end

local shape = (SEED or 1) % 3 -- 0 tree + loops, 1 rings, 2 shattered hubs
local m = { name = "random" .. (SEED or 1), bodies = {}, constraints = {},
            settings = { epsilon = 1e-6 } }
if R(4) == 1 then m.settings.ground = { height = -5 } end
if R(4) == 1 then m.settings.stabilize = true end
if R(3) == 1 then m.settings.shatter = R(8, 30) end

local nb = shape == 2 and R(6, 14) or R(4, 16)
local pos, fixed = {}, {}
for i = 1, nb do
  pos[i] = { U(-3, 3), U(-3, 3), U(0, 4) }
  local q = { U(-1, 1), U(-1, 1), U(-1, 1), U(-1, 1) }
  local body = { name = "b" .. i, mass = 10 ^ U(0, 4), pos = pos[i], rot = q }
  local s = R(3)
  if s == 1 then body.box = { U(0.1, 1), U(0.1, 1), U(0.1, 1) }
  elseif s == 2 then body.sphere = U(0.1, 0.5)
  else body.cylinder = { U(0.05, 0.3), U(0.2, 1.5) } end
  if R(3) == 1 then body.shape = { sphere = U(0.1, 0.4) } end
  if i > 2 and R(8) == 1 then body.fixed = true; fixed[i] = true end
  m.bodies[i] = body
end

local types = { "ball", "hinge", "rod", "prismatic", "cylindrical", "universal", "weld" }
local nc = 0
local joints = {} -- equality constraints by type, for limits and motors
local function point(x) return x == "world" and { 0, 0, 0 } or pos[tonumber(x:sub(2))] end
local function connect(a, b)
  if a == b then return end
  local ia, ib = a ~= "world" and tonumber(a:sub(2)), tonumber(b:sub(2))
  if (a == "world" or fixed[ia]) and fixed[ib] then return end -- both fixed
  nc = nc + 1
  local pa, pb = point(a), point(b)
  local mid = { (pa[1] + pb[1]) / 2 + U(-0.1, 0.1), (pa[2] + pb[2]) / 2, (pa[3] + pb[3]) / 2 }
  local c = { name = "c" .. nc, type = types[R(#types)], a = a, b = b }
  if c.type == "rod" then
    c.anchor_a = { pa[1] + U(0.2, 0.5), pa[2], pa[3] }
    c.anchor_b = pb
    if R(3) == 1 then c.speed = U(-0.1, 0.1) end
  else
    c.anchor = mid
  end
  if c.type == "hinge" or c.type == "prismatic" or c.type == "cylindrical" then c.axis = unit() end
  if c.type == "universal" then
    c.axis_a = unit()
    c.axis_b = perpendicular(c.axis_a)
  end
  m.constraints[#m.constraints + 1] = c
  joints[c.type] = joints[c.type] or {}
  table.insert(joints[c.type], c.name)
end

if shape == 0 then
  for i = 2, nb do connect("b" .. R(i - 1), "b" .. i) end       -- a random tree
  for _ = 1, R(0, nb // 2) do                                   -- loops
    local i, j = R(nb), R(nb)
    if i ~= j then connect("b" .. math.min(i, j), "b" .. math.max(i, j)) end
  end
elseif shape == 1 then
  for i = 2, nb do connect("b" .. (i - 1), "b" .. i) end        -- a chain ...
  connect("b1", "b" .. nb)                                      -- ... closed
  if nb > 5 then connect("b2", "b" .. (nb - 2)) end             -- and a chord
else
  local hubs = R(1, 2)
  for i = 2, nb do connect("b" .. R(hubs), "b" .. i) end        -- spokes
  for _ = 1, R(6, 14) do connect("b" .. R(hubs), "b" .. R(hubs + 1, nb)) end -- more on the hubs
end
for _ = 1, R(1, 3) do connect("world", "b" .. R(nb)) end        -- supports

-- inequality rows: limits, ropes and motors on what exists
local function pick(list) return list and list[R(#list)] end
local n_ineq = 0
local function add(c)
  n_ineq = n_ineq + 1
  c.name = "q" .. n_ineq
  m.constraints[#m.constraints + 1] = c
end
for _ = 1, R(0, 4) do
  local kind = R(4)
  if kind == 1 then
    local j = pick(joints.hinge) or pick(joints.cylindrical)
    if j then add({ type = "angular_limit", hinge = j, lower = -U(0.1, 1), upper = U(0.1, 1) }) end
  elseif kind == 2 then
    local j = pick(joints.prismatic) or pick(joints.cylindrical)
    if j then add({ type = "positional_limit", joint = j, lower = -U(0.05, 0.5), upper = U(0.05, 0.5) }) end
  elseif kind == 3 then
    local i, j = R(nb), R(nb)
    if i ~= j and not (fixed[i] and fixed[j]) then
      add({ type = "rope", a = "b" .. i, b = "b" .. j, anchor_a = pos[i],
            anchor_b = { pos[j][1] + 0.1, pos[j][2], pos[j][3] } })
    end
  else
    local j = pick(joints.hinge) or pick(joints.prismatic) or pick(joints.cylindrical)
    if j then add({ type = "motor", joint = j, speed = U(-1, 1), max_force = U(1, 100) }) end
  end
end

return m
