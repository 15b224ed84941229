-- excavator.lua: an excavator's arm on a fixed house: boom, stick and
-- bucket on hinges (axis y), each moved by a hydraulic cylinder -- a barrel
-- and a piston on hinges at their eyes, sliding in each other (prismatic),
-- with the oil column between the eyes a rod -- and the bucket's cylinder
-- acting through the usual four-bar linkage (a side link to the stick, a
-- dogbone to the bucket). Every cylinder closes a planar loop of hinges and
-- a prismatic joint, and the linkage another: in three dimensions their
-- out-of-plane rows repeat, so H is singular. A test fixture for
-- refinement and PCR on redundant mechanisms (tests/test_refine.c,
-- tests/test_pcr.c). Points are {x, z}; the arm reaches along +x.
local m = { name = "excavator", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
local Y = { 0, 1, 0 }
local function P(p) return { p[1], 0, p[2] } end
local function mid(p, q) return { (p[1] + q[1]) / 2, (p[2] + q[2]) / 2 } end
local function lerp(p, q, t) return { p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2]) } end

add(m.bodies, { name = "house", fixed = true, box = { 3, 2.5, 1.2 }, pos = { 0, 0, 0.6 } })
local function body(name, mass, p, q, w)
  return add(m.bodies, { name = name, mass = mass, box = { w or 0.3, 0.4, 0.3 }, pos = P(mid(p, q)) })
end
local function hinge(name, a, b, p)
  add(m.constraints, { name = name, type = "hinge", a = a, b = b, anchor = P(p), axis = Y })
end

local boom_foot, boom_tip = { 0.6, 1.4 }, { 5.2, 3.6 }
local stick_tip = { 6.4, 0.6 }
local stick_top = { 4.9, 4.3 }  -- the stick reaches above its hinge: the stick cylinder's eye
body("boom", 1800, boom_foot, boom_tip, 4.5)
body("stick", 900, stick_top, stick_tip, 3.5)
body("bucket", 600, stick_tip, { 6.9, 0.2 }, 1.0)
hinge("boom_hinge", "house", "boom", boom_foot)
hinge("stick_hinge", "boom", "stick", boom_tip)
hinge("bucket_hinge", "stick", "bucket", stick_tip)

-- a cylinder from eye p (on body a) to eye q (on body b)
local function cylinder(name, a, p, b, q)
  local half = mid(p, q)
  body(name .. "_barrel", 120, p, half, 0.2)
  body(name .. "_piston", 60, half, q, 0.15)
  local dx, dz = q[1] - p[1], q[2] - p[2]
  local len = math.sqrt(dx * dx + dz * dz)
  hinge(name .. "_base", a, name .. "_barrel", p)
  hinge(name .. "_eye", name .. "_piston", b, q)
  add(m.constraints, { name = name .. "_slide", type = "prismatic", a = name .. "_barrel", b = name .. "_piston",
                       anchor = P(half), axis = { dx / len, 0, dz / len } })
  add(m.constraints, { name = name .. "_oil", type = "rod", a = name .. "_barrel", b = name .. "_piston",
                       anchor_a = P(p), anchor_b = P(q) })
end
cylinder("boom_cyl", "house", { 1.4, 0.9 }, "boom", lerp(boom_foot, boom_tip, 0.45))
cylinder("stick_cyl", "boom", { 3.0, 3.3 }, "stick", stick_top)

-- the bucket linkage: the cylinder's piston eye K carries a side link to
-- the stick and a dogbone to the bucket
local K = { 6.2, 1.5 }
body("side_link", 40, K, { 5.9, 1.0 }, 0.5)
body("dogbone", 40, K, { 6.75, 0.95 }, 0.6)
hinge("side_link_stick", "stick", "side_link", { 5.9, 1.0 })
hinge("dogbone_bucket", "dogbone", "bucket", { 6.75, 0.95 })
hinge("side_link_dogbone", "side_link", "dogbone", K)
cylinder("bucket_cyl", "stick", { 5.3, 3.4 }, "side_link", K)
return m
