-- jansen.lua: one leg of Theo Jansen's linkage (the Strandbeest), a planar
-- 1-degree-of-freedom linkage of seven bodies and ten hinges, all with axis
-- y. In three dimensions every closed planar loop of hinges repeats its
-- out-of-plane rows, so H is singular: 50 rows for 42 body degrees of
-- freedom. A test fixture for refinement and PCR on redundant mechanisms
-- (tests/test_refine.c, tests/test_pcr.c).
--
-- Jansen's lengths (cm): crank m = 15, fixed pivot a = 38 left and l = 7.8
-- below the crank axle; j = 50, b = 41.5, c = 39.3, d = 40.1, e = 55.8,
-- f = 39.4, g = 36.7, h = 65.7, i = 49, k = 61.9. The points are found by
-- intersecting circles at the crank angle below.
local m = { name = "jansen", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
local cm = 0.01
local Y = { 0, 1, 0 }

-- the intersection of circle (p, r) with circle (q, s) on the side given by
-- sign (+1: left of p -> q), points as {x, z}
local function meet(p, r, q, s, sign)
  local dx, dz = q[1] - p[1], q[2] - p[2]
  local d = math.sqrt(dx * dx + dz * dz)
  local a = (r * r - s * s + d * d) / (2 * d)
  local h = math.sqrt(math.max(r * r - a * a, 0))
  local mx, mz = p[1] + a * dx / d, p[2] + a * dz / d
  return { mx - sign * h * dz / d, mz + sign * h * dx / d }
end

local phi = math.rad(40) -- crank angle
local O = { 0, 0 }
local B = { -38 * cm, -7.8 * cm }
local A = { 15 * cm * math.cos(phi), 15 * cm * math.sin(phi) }
local C = meet(B, 41.5 * cm, A, 50 * cm, -1)   -- upper: joins j and the upper triangle
local E = meet(B, 39.3 * cm, A, 61.9 * cm, 1)  -- lower: joins k, c and the foot
local D = meet(B, 40.1 * cm, C, 55.8 * cm, -1) -- the upper triangle's outer corner
local F = meet(D, 39.4 * cm, E, 36.7 * cm, -1) -- joins f and the foot
local G = meet(E, 49 * cm, F, 65.7 * cm, -1)   -- the foot's tip

local function P(p) return { p[1], 0, p[2] } end
local function body(name, mass, ...)
  local pts, x, z = { ... }, 0, 0
  for _, p in ipairs(pts) do x, z = x + p[1] / #pts, z + p[2] / #pts end
  return add(m.bodies, { name = name, mass = mass, box = { 0.3, 0.02, 0.05 }, pos = { x, 0, z } })
end
body("crank", 0.5, O, A)
body("j", 0.3, A, C)
body("k", 0.4, A, E)
body("upper", 0.8, B, C, D)
body("c", 0.3, B, E)
body("f", 0.3, D, F)
body("foot", 1.0, E, F, G)

local function hinge(name, a, b, p)
  add(m.constraints, { name = name, type = "hinge", a = a, b = b, anchor = P(p), axis = Y })
end
hinge("axle", "world", "crank", O)
hinge("crank_j", "crank", "j", A)
hinge("crank_k", "crank", "k", A)
hinge("j_upper", "j", "upper", C)
hinge("pivot_upper", "world", "upper", B)
hinge("pivot_c", "world", "c", B)
hinge("k_c", "k", "c", E)
hinge("k_foot", "k", "foot", E)
hinge("upper_f", "upper", "f", D)
hinge("f_foot", "f", "foot", F)
return m
