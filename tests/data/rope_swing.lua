-- rope_swing.lua: a weight on a 1 m rope, swinging at 8 m/s: each step it
-- moves along a tangent and overruns the rope by about v^2 dt^2 / (2 L),
-- ~1 cm at dt 1/60, before the next step pulls it back (max_limit_violation
-- of ldlsim --json, rope kind). z is up, SI units.
local m = { name = "rope_swing", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "weight", mass = 1, sphere = 0.05, pos = { 0, 0, -1 }, vel = { 8, 0, 0 } })
add(m.constraints, { name = "rope", type = "rope", a = "world", b = "weight",
                     anchor_a = { 0, 0, 0 }, anchor_b = { 0, 0, -1 } })
return m
