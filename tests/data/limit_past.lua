-- limit_past.lua: an arm hanging from a hinge whose angular_limit starts
-- past its bound (the angle is 0 at the initial pose, the limit [0.4, 0.8]
-- rad): a run's max_limit_violation (ldlsim --json) is about 0.4 rad after
-- the first step, whatever the solver. z is up, SI units.
local m = { name = "limit_past", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "arm", mass = 1, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 } })
add(m.constraints, { name = "pivot", type = "hinge", a = "world", b = "arm",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "stop", type = "angular_limit", hinge = "pivot", lower = 0.4, upper = 0.8 })
return m
