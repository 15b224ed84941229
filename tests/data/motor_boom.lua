-- motor_boom.lua: a 1 kg boom held horizontal by a speed-0 motor with ample
-- force (1e5 N m against 2450 N m), a 250 kg load hanging from its tip on a
-- light link (250:1). Plain PGS with few iterations cannot hold the chain
-- together, and its position correction turns the boom while the motor is
-- far from its bound: a large max_motor_slip (ldlsim --json). The load is
-- turned about z so that --poses has a rotation to show. z is up, SI units.
local m = { name = "motor_boom", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "boom", mass = 1, box = { 1, 0.1, 0.1 }, pos = { 0.5, 0, 0 } })
add(m.bodies, { name = "link", mass = 1, box = { 0.05, 0.05, 0.5 }, pos = { 1, 0, -0.25 } })
add(m.bodies, { name = "load", mass = 250, box = { 0.2, 0.2, 0.2 }, pos = { 1, 0, -0.6 },
                rot = { 0.8, 0, 0, 0.6 } })
add(m.constraints, { name = "base", type = "hinge", a = "world", b = "boom",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "tip", type = "hinge", a = "boom", b = "link",
                     anchor = { 1, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "hook", type = "hinge", a = "link", b = "load",
                     anchor = { 1, 0, -0.5 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "hold", type = "motor", joint = "base", speed = 0, max_force = 1e5 })
return m
