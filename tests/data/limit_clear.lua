-- limit_clear.lua: an arm hanging from a hinge, pushed to swing about
-- +-0.56 rad, inside its angular_limit of +-0.8 rad: it never reaches the
-- limit, so a run's max_limit_violation (ldlsim --json) is 0. z is up, SI.
local m = { name = "limit_clear", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end
add(m.bodies, { name = "arm", mass = 1, box = { 0.05, 0.05, 0.5 }, pos = { 0, 0, -0.25 },
                vel = { -0.75, 0, 0 }, angvel = { 0, 3, 0 } })
add(m.constraints, { name = "pivot", type = "hinge", a = "world", b = "arm",
                     anchor = { 0, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "stop", type = "angular_limit", hinge = "pivot", lower = -0.8, upper = 0.8 })
return m
