-- soak_roll.lua: a 100 kg cart on four free wheels, one of them turned by
-- a motor at 1 rad/s: it drives off at 0.25 m/s instead of standing. The
-- soak (tools/soak.c) must fail it for wandering along the ground
-- (tests/test_cli.c); with the motor at speed 0 it stands and passes.
-- z is up, SI units.
local m = { name = "soak_roll", bodies = {}, constraints = {},
            settings = { ground = { height = 0 }, probe = "chassis" } }
local function add(t, x) t[#t + 1] = x; return x end
local r = 0.25
local along_y = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 } -- a cylinder's axis (body z) onto y
add(m.bodies, { name = "chassis", mass = 100, box = { 1.6, 0.8, 0.2 }, pos = { 0, 0, 0.45 } })
for _, w in ipairs({ { "FL", 0.6, 0.5 }, { "FR", 0.6, -0.5 }, { "RL", -0.6, 0.5 }, { "RR", -0.6, -0.5 } }) do
  add(m.bodies, { name = "wheel" .. w[1], mass = 5, cylinder = { r, 0.1 }, shape = { cylinder = { r, 0.1 } },
                  pos = { w[2], w[3], r }, rot = along_y })
  add(m.constraints, { name = "axle" .. w[1], type = "hinge", a = "chassis", b = "wheel" .. w[1],
                       anchor = { w[2], w[3], r }, axis = { 0, 1, 0 } })
end
add(m.constraints, { name = "drive", type = "motor", joint = "axleRL", speed = 1, max_force = 200 })
return m
