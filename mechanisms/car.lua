-- car.lua: a four-wheeled car on sprung, damped, limited suspension struts.
-- A 1200 kg chassis stands on four corners. Each corner is a strut body
-- joined to the chassis by a cylindrical joint with a vertical axis (the
-- strut slides up and down in its tower, and could turn about it), and the
-- wheel turns on the strut on a hinge (axis y). Per strut:
--   - a `spring` on the cylindrical joint's travel (axis "linear"): 1.5 Hz
--     under a quarter of the chassis, damping ratio 0.4; its rest is set so
--     that the car stands at travel 0, the middle of the travel limit;
--   - a `positional_limit`: the rebound and bump stops at -8 and +8 cm;
--   - a `motor` on the joint's rotation about the tower (axis "angular",
--     speed 0): the steering box on the front struts, the toe link on the
--     rear ones (held still in this sample), and an `angular_limit` (steering
--     lock) on the front ones.
-- The rear wheels are driven by motors on their hinges (rad/s about +y:
-- positive drives forward; speed 0 holds them as brakes). The wheels
-- (cylinder shapes) stand on the ground plane; a speed bump 10 cm high lies
-- across the road 6 m ahead of the front wheels: a fixed body whose box
-- shape the wheels hit through body-body contacts (settings.collide: a
-- cylinder against a box whose axes are parallel to its own). The struts
-- have no shape: only the wheels touch the road and the bump.
-- Motors, limits and springs are not equality rows: they leave the
-- generated program's structure unchanged. mechanisms/car.drive
-- accelerates over the bump and brakes.
-- z is up, SI units; the car points along +x.

local m = { name = "car", bodies = {}, constraints = {},
            settings = { ground = { height = 0, friction = 1.0 }, friction = 1.0, collide = true,
                         probe = "chassis" } }
local function add(t, x) t[#t + 1] = x; return x end

local g = 9.81
local r, wheel_width, wheel_mass = 0.33, 0.22, 20.0   -- wheel radius (m), width, mass
local wheelbase, half_track = 2.6, 0.78               -- wheel centres at x = +/-1.3, y = +/-0.78
local strut_y = 0.58                                  -- the struts' towers, inboard of the wheels
local chassis_mass, strut_mass = 1200.0, 25.0
local travel = 0.08                                   -- bump and rebound stops (m)
local wheel_rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }  -- cylinder z onto y

-- suspension: each spring carries a quarter of the chassis (the sprung
-- mass) at 1.5 Hz with a damping ratio of 0.4
local sprung = chassis_mass / 4
local omega = 2 * math.pi * 1.5
local stiffness = sprung * omega * omega              -- N/m (26.6 kN/m)
local damping = 2 * 0.4 * math.sqrt(stiffness * sprung)  -- N s/m (2.3 kN s/m)
-- The strut (body b) moves up along the tower's +z axis when the spring is
-- compressed: travel x > 0. The spring pushes with -stiffness * (x - rest),
-- so at x = 0 it carries the quarter chassis when rest = -sprung g / stiffness
-- (11 cm below the initial pose: the static deflection).
local rest = -sprung * g / stiffness

add(m.bodies, { name = "chassis", mass = chassis_mass, box = { 4.0, 1.2, 0.4 }, pos = { 0, 0, 0.65 },
                shape = { box = { 4.0, 1.2, 0.4 } } })

local corners = { { "FL", 1, 1 }, { "FR", 1, -1 }, { "RL", -1, 1 }, { "RR", -1, -1 } }
for _, c in ipairs(corners) do
  local name, x, sy = c[1], c[2] * wheelbase / 2, c[3]
  add(m.bodies, { name = "strut" .. name, mass = strut_mass, box = { 0.12, 0.12, 0.5 },
                  pos = { x, sy * strut_y, r + 0.2 } })
  add(m.bodies, { name = "wheel" .. name, mass = wheel_mass, cylinder = { r, wheel_width },
                  shape = { cylinder = { r, wheel_width } }, pos = { x, sy * half_track, r }, rot = wheel_rot })
end

-- the bump: 10 cm high, 50 cm long, across the whole road; taken at speed
-- it drives the struts into their bump stops and then their rebound stops
local bump_x, bump_h = wheelbase / 2 + 6.0, 0.10
add(m.bodies, { name = "bump", fixed = true, box = { 0.5, 3.0, bump_h }, pos = { bump_x + 0.25, 0, bump_h / 2 },
                shape = { box = { 0.5, 3.0, bump_h } } })

for _, c in ipairs(corners) do
  local name, x, sy = c[1], c[2] * wheelbase / 2, c[3]
  local front = c[2] > 0
  local tower = "tower" .. name
  add(m.constraints, { name = tower, type = "cylindrical", a = "chassis", b = "strut" .. name,
                       anchor = { x, sy * strut_y, r + 0.2 }, axis = { 0, 0, 1 } })
  add(m.constraints, { name = "axle" .. name, type = "hinge", a = "strut" .. name, b = "wheel" .. name,
                       anchor = { x, sy * half_track, r }, axis = { 0, 1, 0 } })
  add(m.constraints, { name = "spring" .. name, type = "spring", joint = tower, axis = "linear",
                       stiffness = stiffness, damping = damping, rest = rest })
  add(m.constraints, { name = "stop" .. name, type = "positional_limit", joint = tower,
                       lower = -travel, upper = travel })
  add(m.constraints, { name = (front and "steer" or "toe") .. name, type = "motor", joint = tower,
                       axis = "angular", speed = 0, max_force = 3000 })
  if front then
    add(m.constraints, { name = "lock" .. name, type = "angular_limit", hinge = tower,
                         lower = -0.6, upper = 0.6 })
  else
    add(m.constraints, { name = "drive" .. name, type = "motor", joint = "axle" .. name,
                         axis = "angular", speed = 0, max_force = 500 })
  end
end

return m
