-- random_robust.lua: the random-mechanism generator as test_robust.c chose
-- its seeds with (tests/data/random_mechanism.lua before it grew inequality
-- rows and hubs).
-- random_mechanism.lua: a random mechanism for the generated-code tests.
-- The Makefile prepends "SEED = k" to make each variant (math.random is
-- seeded by the sandbox; math.randomseed(SEED) picks the variant). Random
-- body graphs: a random tree plus loop-closing constraints and constraints
-- to the world; every equality type; random poses (unit quaternions),
-- masses spanning four decades (mass ratios up to 1e4) and shapes.
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

local m = { name = "random" .. (SEED or 1), bodies = {}, constraints = {}, settings = { epsilon = 1e-6 } }
local nb = R(4, 16)
local pos = {}
for i = 1, nb do
  pos[i] = { U(-3, 3), U(-3, 3), U(0, 4) }
  local q = { U(-1, 1), U(-1, 1), U(-1, 1), U(-1, 1) }
  local body = { name = "b" .. i, mass = 10 ^ U(0, 4), pos = pos[i], rot = q }
  local shape = R(3)
  if shape == 1 then body.box = { U(0.1, 1), U(0.1, 1), U(0.1, 1) }
  elseif shape == 2 then body.sphere = U(0.1, 0.5)
  else body.cylinder = { U(0.05, 0.3), U(0.2, 1.5) } end
  m.bodies[i] = body
end

local types = { "ball", "hinge", "rod", "prismatic", "cylindrical", "universal", "weld" }
local nc = 0
local function connect(a, b)
  nc = nc + 1
  local pa = a == "world" and { 0, 0, 0 } or pos[tonumber(a:sub(2))]
  local pb = pos[tonumber(b:sub(2))]
  local mid = { (pa[1] + pb[1]) / 2, (pa[2] + pb[2]) / 2, (pa[3] + pb[3]) / 2 }
  local c = { name = "c" .. nc, type = types[R(#types)], a = a, b = b }
  if c.type == "rod" then
    c.anchor_a = { pa[1] + U(-0.2, 0.2), pa[2], pa[3] }
    c.anchor_b = pb
  else
    c.anchor = mid
  end
  if c.type == "hinge" or c.type == "prismatic" or c.type == "cylindrical" then c.axis = unit() end
  if c.type == "universal" then
    c.axis_a = unit()
    c.axis_b = cross(c.axis_a, unit())
  end
  m.constraints[nc] = c
end

for i = 2, nb do connect("b" .. R(i - 1), "b" .. i) end          -- a random tree
for _ = 1, R(0, nb // 2) do                                      -- loops
  local i, j = R(nb), R(nb)
  if i ~= j then connect("b" .. math.min(i, j), "b" .. math.max(i, j)) end
end
for _ = 1, R(1, 3) do connect("world", "b" .. R(nb)) end         -- supports

return m
