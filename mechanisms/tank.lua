-- tank.lua: a tracked vehicle. A hull on two tracks, each a closed loop of
-- 40 steel plates joined by 40 hinges (track.lua's loop, standing on the
-- ground), wrapped around four wheels hinged to the hull: the drive
-- sprocket at the rear, two road wheels and the idler at the front. The
-- wheels are as large as the loop's turns, so the track's top run rests on
-- them and the bottom run carries the hull to the ground.
--
-- Plates touch the wheels and the ground through contacts (settings.collide:
-- cylinder against box, rt_world_body_contacts), never through joints: the
-- sprockets drive the tracks by friction. Motors on the sprocket axles
-- (rad/s about +y: positive drives forward) turn them; unequal speeds
-- steer by skidding. mechanisms/tank.drive is a sample drive script.
-- z is up, SI units; the tank points along +x.

local n = 40                      -- plates per track
local pitch = 0.16                -- hinge pin to hinge pin (m)
local radius = 0.35               -- radius of the loop's turns (pin line)
local half_turn = math.pi * radius
local straight = (n * pitch - 2 * half_turn) / 2  -- each straight run
local width, thickness = 0.5, 0.03
local plate_mass = 20.0
local wheel_r, wheel_len, wheel_mass = 0.32, 0.3, 60.0
local gauge = 0.95                -- track centre line from the hull's centre line (y)
local centre_z = thickness / 2 + radius  -- height of the wheel axles

local m = { name = "tank", bodies = {}, constraints = {},
            settings = { ground = { height = 0, friction = 1.0 }, friction = 1.0, collide = true,
                         max_contacts = 1024, stabilize = true, probe = "hull" } }
local function add(t, x) t[#t + 1] = x; return x end

-- point on the loop at arc length s (counter-clockwise seen from -y,
-- starting at the bottom run's rear end), in x-z relative to the rear
-- turn's centre
local function loop_point(s)
  s = s % (n * pitch)
  if s < straight then return s, -radius end                 -- bottom run, moving +x
  s = s - straight
  if s < half_turn then                                      -- front turn
    local a = s / radius
    return straight + radius * math.sin(a), -radius * math.cos(a)
  end
  s = s - half_turn
  if s < straight then return straight - s, radius end       -- top run, moving -x
  local a = (s - straight) / radius                          -- rear turn
  return -radius * math.sin(a), radius * math.cos(a)
end

local x0 = -straight / 2          -- the rear turn's centre (x); the hull is centred on 0
add(m.bodies, { name = "hull", mass = 1500, box = { 2.8, 1.3, 0.6 }, pos = { 0, 0, 0.55 },
                shape = { box = { 2.8, 1.3, 0.6 } } })

local wheel_rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }  -- cylinder z onto y
local wheels = { { "sprocket", 0 }, { "road1", 1 }, { "road2", 2 }, { "idler", 3 } }

for _, s in ipairs({ { "L", 1 }, { "R", -1 } }) do
  local side, y = s[1], s[2] * gauge
  for _, wh in ipairs(wheels) do
    local x = x0 + wh[2] * straight / 3
    add(m.bodies, { name = wh[1] .. side, mass = wheel_mass, cylinder = { wheel_r, wheel_len },
                    shape = { cylinder = { wheel_r, wheel_len } }, pos = { x, y, centre_z }, rot = wheel_rot })
    add(m.constraints, { name = wh[1] .. "_axle" .. side, type = "hinge", a = "hull", b = wh[1] .. side,
                         anchor = { x, y, centre_z }, axis = { 0, 1, 0 } })
  end

  local pins = {}
  for i = 0, n - 1 do
    local x, z = loop_point(i * pitch)
    pins[i] = { x0 + x, y, centre_z + z }
  end
  for i = 0, n - 1 do
    local p, q = pins[i], pins[(i + 1) % n]
    local angle = math.atan(q[3] - p[3], q[1] - p[1])         -- the plate's pitch about y
    add(m.bodies, { name = string.format("plate%s%02d", side, i), mass = plate_mass,
                    box = { pitch, width, thickness }, shape = { box = { pitch, width, thickness } },
                    pos = { (p[1] + q[1]) / 2, y, (p[3] + q[3]) / 2 },
                    rot = { math.cos(-angle / 2), 0.0, math.sin(-angle / 2), 0.0 } })
  end
  for i = 0, n - 1 do
    add(m.constraints, { name = string.format("pin%s%02d", side, i), type = "hinge",
                         a = string.format("plate%s%02d", side, (i - 1) % n),
                         b = string.format("plate%s%02d", side, i), anchor = pins[i], axis = { 0, 1, 0 } })
  end
  add(m.constraints, { name = "drive" .. side, type = "motor", joint = "sprocket_axle" .. side,
                       speed = 0, max_force = 1000 })
end

return m
