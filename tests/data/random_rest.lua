-- random_rest.lua: a random mechanism at rest, for the regularization tests
-- (issue 15, part 3). The test prepends "SEED = k" (and may set RATIO, the
-- largest mass ratio, default 1e4). A random tree of bodies with masses
-- spanning RATIO hangs from the world: every body hangs straight below the
-- point of its parent it is joined to, so the whole tree hangs in stable
-- equilibrium, on every equality type (ball, hinge and universal with
-- horizontal axes, weld, rod, prismatic and cylindrical sliding
-- horizontally); then extra constraints close loops (between two bodies,
-- or a body and the world) at points where the pose already satisfies them,
-- which makes rows redundant. Released at rest, nothing should move.
math.randomseed(SEED or 1)
local R = math.random
local ratio = RATIO or 1e4
local function U(a, b) return a + (b - a) * R() end
local function horizontal()
  local a = U(0, 2 * math.pi)
  return { math.cos(a), math.sin(a), 0 }
end

local m = { name = "random_rest" .. (SEED or 1), bodies = {}, constraints = {} }
local nb = R(4, 14)
local pos, parent = {}, {}
for i = 1, nb do
  local mass = ratio ^ U(0, 1)
  if i == 1 then mass = 1 elseif i == 2 then mass = ratio end -- the full ratio
  parent[i] = i > 1 and R(i - 1) or 0
  local top = i == 1 and { 0, 0, 0 } or { pos[parent[i]][1], pos[parent[i]][2], pos[parent[i]][3] - 0.3 }
  pos[i] = { top[1], top[2], top[3] - 0.3 }
  m.bodies[i] = { name = "b" .. i, mass = mass, box = { U(0.1, 0.4), U(0.1, 0.4), 0.6 }, pos = pos[i] }
end

local nc = 0
local function add(c) nc = nc + 1; c.name = "c" .. nc; m.constraints[nc] = c; return c end
local types = { "ball", "hinge", "universal", "weld", "rod", "prismatic", "cylindrical" }
-- body i hangs from point p of a (a body name or "world"), p straight above i's centre
local function hang(a, i, p)
  local t = types[R(#types)]
  local c = add({ type = t, a = a, b = "b" .. i })
  if t == "rod" then
    c.anchor_a = p
    c.anchor_b = { pos[i][1], pos[i][2], pos[i][3] }  -- from the point to the centre, straight down
  else
    c.anchor = p
  end
  if t == "hinge" or t == "prismatic" or t == "cylindrical" then c.axis = horizontal() end
  if t == "universal" then
    c.axis_a = horizontal()
    c.axis_b = { -c.axis_a[2], c.axis_a[1], 0 }
  end
end
hang("world", 1, { 0, 0, 0 })
for i = 2, nb do hang("b" .. parent[i], i, { pos[i][1], pos[i][2], pos[i][3] + 0.3 }) end
-- loops: a ball joint at a body's centre to another body or the world
for _ = 1, R(1, nb // 2 + 1) do
  local i, j = R(nb), R(nb)
  if i ~= j then
    add({ type = "ball", a = "b" .. math.min(i, j), b = "b" .. math.max(i, j), anchor = pos[i] })
  else
    add({ type = "ball", a = "world", b = "b" .. i, anchor = pos[i] })
  end
end
return m
