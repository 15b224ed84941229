-- buggy.lua: the talk's dune buggy. A body with two rear wheels on hinges,
-- two front knuckles on vertical steering hinges, the front wheels on hinges
-- in the knuckles, and a steering rack sliding across the body (prismatic)
-- that turns the knuckles through two tie rods (distance constraints).
-- It drives: the wheels (cylinder shapes) stand on the ground plane, two
-- motors turn the rear wheels (parked: speed 0, they hold as brakes), a
-- motor moves the rack to steer, within a positional limit. Motors and
-- limits are PGS rows: they leave the equality block (and the generated
-- program) unchanged. mechanisms/buggy.drive is a sample drive script.
-- z is up, SI units; the buggy points along +x.

local m = { name = "buggy", bodies = {}, constraints = {},
            settings = { ground = { height = 0, friction = 1.0 }, probe = "body" } }
local function add(t, x) t[#t + 1] = x; return x end

local r = 0.35                    -- wheel radius
local wheelbase, half_track = 2.2, 0.8
local wheel_rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }  -- cylinder z onto y
local xf, xr = wheelbase / 2, -wheelbase / 2

add(m.bodies, { name = "body", mass = 400, box = { 3.0, 1.4, 0.5 }, pos = { 0, 0, 0.6 },
                shape = { box = { 3.0, 1.4, 0.5 } } })
add(m.bodies, { name = "rack", mass = 5, box = { 0.1, 1.0, 0.06 }, pos = { xf - 0.25, 0, r } })

for _, s in ipairs({ { "L", 1 }, { "R", -1 } }) do
  local side, sy = s[1], s[2]
  local y = sy * half_track
  add(m.bodies, { name = "knuckle" .. side, mass = 8, box = { 0.15, 0.1, 0.3 },
                  pos = { xf, y - sy * 0.15, r } })
  add(m.bodies, { name = "front" .. side, mass = 20, cylinder = { r, 0.25 }, shape = { cylinder = { r, 0.25 } },
                  pos = { xf, y, r }, rot = wheel_rot })
  add(m.bodies, { name = "rear" .. side, mass = 20, cylinder = { r, 0.25 }, shape = { cylinder = { r, 0.25 } },
                  pos = { xr, y, r }, rot = wheel_rot })
end

for _, s in ipairs({ { "L", 1 }, { "R", -1 } }) do
  local side, sy = s[1], s[2]
  local y = sy * half_track
  add(m.constraints, { name = "rear_axle" .. side, type = "hinge", a = "body", b = "rear" .. side,
                       anchor = { xr, y, r }, axis = { 0, 1, 0 } })
  add(m.constraints, { name = "kingpin" .. side, type = "hinge", a = "body", b = "knuckle" .. side,
                       anchor = { xf, y - sy * 0.15, r }, axis = { 0, 0, 1 } })
  add(m.constraints, { name = "spindle" .. side, type = "hinge", a = "knuckle" .. side, b = "front" .. side,
                       anchor = { xf, y, r }, axis = { 0, 1, 0 } })
  -- tie rod from the rack's end to the knuckle's steering arm
  add(m.constraints, { name = "tie_rod" .. side, type = "rod", a = "rack", b = "knuckle" .. side,
                       anchor_a = { xf - 0.25, sy * 0.5, r }, anchor_b = { xf - 0.15, y - sy * 0.15, r } })
end
add(m.constraints, { name = "rack_slide", type = "prismatic", a = "body", b = "rack",
                     anchor = { xf - 0.25, 0, r }, axis = { 0, 1, 0 } })

-- drive train and steering: rear wheel motors (rad/s about +y: positive
-- drives forward), the steering motor on the rack (m/s along +y) and the
-- rack's travel limit
for _, side in ipairs({ "L", "R" }) do
  add(m.constraints, { name = "drive_rear" .. side, type = "motor", joint = "rear_axle" .. side,
                       speed = 0, max_force = 400 })
end
add(m.constraints, { name = "steer", type = "motor", joint = "rack_slide", speed = 0, max_force = 3000 })
add(m.constraints, { name = "steer_stop", type = "positional_limit", joint = "rack_slide",
                     lower = -0.08, upper = 0.08 })

return m
