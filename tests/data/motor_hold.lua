-- motor_hold.lua: a light horizontal arm (1 kg, 0.5 m: 2.45 N m of
-- gravity at the pivot) held by a speed-0 motor with ample force (1000 N m):
-- its max_motor_slip (ldlsim --json) stays tiny. motor_weak.drive lowers
-- the force to 0.5 N m: the motor is saturated while the arm falls, which
-- max_motor_slip leaves out. z is up, SI units.
local m = { name = "motor_hold", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "arm", mass = 1, box = { 0.5, 0.05, 0.05 }, pos = { 0.25, 0, 0 } })
add(m.constraints, { name = "pivot", type = "hinge", a = "world", b = "arm",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "hold", type = "motor", joint = "pivot", speed = 0, max_force = 1000 })
return m
