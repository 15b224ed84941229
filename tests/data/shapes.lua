-- Every shape the glTF writer draws (tests/test_gltf.c, make check-view): a
-- fixed box, a capsule, a sphere, a cylinder, a body given only an inertia
-- (an axis cross), and a box whose collision shape is a sphere (drawn as the
-- sphere). z is up.
local m = { name = "shapes", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
local Y = { 0, 1, 0 }
add(m.bodies, { name = "base", fixed = true, box = { 1.0, 0.4, 0.1 }, pos = { 0, 0, 2 } })
add(m.bodies, { name = "arm", mass = 2, capsule = { 0.05, 0.5 }, pos = { 0, 0, 1.65 } })
add(m.bodies, { name = "bob", mass = 3, sphere = 0.12, pos = { 0, 0, 1.25 } })
add(m.bodies, { name = "wheel", mass = 1, cylinder = { 0.2, 0.05 }, pos = { 0.45, 0, 1.95 },
                rot = { 0.7071067811865476, 0.7071067811865476, 0, 0 } })
add(m.bodies, { name = "hub.1", mass = 0.5, inertia = { 0.01, 0.01, 0.01 }, pos = { -0.45, 0, 1.8 },
                angvel = { 0, 1, 0 } })
add(m.bodies, { name = "ball-box", mass = 1, box = { 0.2, 0.2, 0.2 }, shape = { sphere = 0.1 },
                pos = { -0.45, 0, 1.55 } })
add(m.constraints, { name = "shoulder", type = "hinge", a = "base", b = "arm", anchor = { 0, 0, 1.95 }, axis = Y })
add(m.constraints, { name = "wrist", type = "ball", a = "arm", b = "bob", anchor = { 0, 0, 1.35 } })
add(m.constraints, { name = "axle", type = "hinge", a = "base", b = "wheel", anchor = { 0.45, 0, 1.95 }, axis = Y })
add(m.constraints, { name = "hanger", type = "ball", a = "base", b = "hub.1", anchor = { -0.45, 0, 1.95 } })
add(m.constraints, { name = "link", type = "rod", a = "hub.1", b = "ball-box", anchor_a = { -0.45, 0, 1.8 },
                     anchor_b = { -0.45, 0, 1.6 } })
return m
