-- jansen.lua: one leg of Theo Jansen's linkage (his "holy numbers", in cm):
-- a crank turned by a motor, five bars and two rigid triangles on ten
-- hinges whose axes are all parallel, so every planar loop closes with
-- redundant rows. Planar in x-z, hinge axes along y; z is up, SI units.
local u = 0.01                                   -- the numbers are in cm
local a, l, m_ = 38, 7.8, 15                     -- frame and crank
local b, c, d, e, f, g, h, i, j, k = 41.5, 39.3, 40.1, 55.8, 39.4, 36.7, 65.7, 49, 50, 61.9
local theta = math.rad(60)                       -- crank angle at the start

-- the intersection of circles (p, r) and (q, s): left of the line from p
-- to q if left, else right (the branch on which the leg turns all round)
local function meet(p, r, q, s, left)
  local dx, dz = q[1] - p[1], q[2] - p[2]
  local dd = math.sqrt(dx * dx + dz * dz)
  local along = (r * r - s * s + dd * dd) / (2 * dd)
  local off = math.sqrt(r * r - along * along)
  local mx, mz = p[1] + along * dx / dd, p[2] + along * dz / dd
  local x1, z1 = mx - off * dz / dd, mz + off * dx / dd
  local x2, z2 = mx + off * dz / dd, mz - off * dx / dd
  if left then return { x1, z1 } end
  return { x2, z2 }
end

local O = { 0, 0 }
local B = { -a, -l }
local A = { m_ * math.cos(theta), m_ * math.sin(theta) }
local C = meet(A, j, B, b, true)
local D = meet(A, k, B, c, true)
local E = meet(B, e, C, d, false)
local F = meet(E, f, D, g, true)
local G = meet(F, h, D, i, false)

local function w(p) return { p[1] * u, 0, p[2] * u } end  -- world point

local mech = { name = "jansen_leg", bodies = {}, constraints = {} }
local function bar(name, p, q, mass)
  local dx, dz = (q[1] - p[1]) * u, (q[2] - p[2]) * u
  local len = math.sqrt(dx * dx + dz * dz)
  local phi = math.atan(-dz, dx)
  mech.bodies[#mech.bodies + 1] = { name = name, mass = mass, box = { len, 0.02, 0.02 },
    pos = { (p[1] + q[1]) / 2 * u, 0, (p[2] + q[2]) / 2 * u }, rot = { math.cos(phi / 2), 0, math.sin(phi / 2), 0 } }
end
local function plate(name, p, q, r, mass)
  mech.bodies[#mech.bodies + 1] = { name = name, mass = mass, box = { 0.3, 0.02, 0.3 },
    pos = { (p[1] + q[1] + r[1]) / 3 * u, 0, (p[2] + q[2] + r[2]) / 3 * u } }
end
local function hinge(name, x, y, p)
  mech.constraints[#mech.constraints + 1] = { name = name, type = "hinge", a = x, b = y, anchor = w(p),
                                              axis = { 0, 1, 0 } }
end

bar("crank", O, A, 1.0)
bar("bar_j", A, C, 0.5)
bar("bar_k", A, D, 0.5)
bar("bar_c", B, D, 0.5)
plate("upper", B, C, E, 1.0)
bar("bar_f", E, F, 0.5)
plate("foot", D, F, G, 1.0)

hinge("axle", "world", "crank", O)
hinge("crank_j", "crank", "bar_j", A)
hinge("crank_k", "crank", "bar_k", A)
hinge("j_upper", "bar_j", "upper", C)
hinge("upper_frame", "world", "upper", B)
hinge("c_frame", "world", "bar_c", B)
hinge("k_c", "bar_k", "bar_c", D)
hinge("c_foot", "bar_c", "foot", D)
hinge("upper_f", "upper", "bar_f", E)
hinge("f_foot", "bar_f", "foot", F)
mech.constraints[#mech.constraints + 1] = { name = "drive", type = "motor", joint = "axle", speed = 3,
                                            max_force = 200 }
return mech
