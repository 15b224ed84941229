-- track.lua: one tank track, a closed loop of 40 steel plates joined by 40
-- hinges (the talk's tracked-vehicle track: dim 200, density 7.5%, ~43k
-- flops). The loop is a stadium shape in the x-z plane: two straight runs
-- joined by half circles around the sprocket and idler positions. Hinge pins
-- run along y, across the track. z is up, SI units.

local n = PLATES or 40            -- PLATES: set by `make bench` for its scaling series
local pitch = 0.16                -- hinge pin to hinge pin (m)
local radius = 0.35               -- radius of the turns around sprocket and idler
local half_turn = math.pi * radius
local straight = (n * pitch - 2 * half_turn) / 2  -- length of each straight run
local width, thickness = 0.5, 0.03
local plate_mass = 6.0

-- point on the loop at arc length s (counter-clockwise, starting at the
-- bottom run's rear end), centre of the rear turn at (0, 0, radius)
local function loop_point(s)
  s = s % (n * pitch)
  if s < straight then                           -- bottom run, moving +x
    return s, 0.0
  end
  s = s - straight
  if s < half_turn then                          -- front turn
    local a = s / radius
    return straight + radius * math.sin(a), radius - radius * math.cos(a)
  end
  s = s - half_turn
  if s < straight then                           -- top run, moving -x
    return straight - s, 2 * radius
  end
  s = s - straight
  local a = s / radius                           -- rear turn
  return -radius * math.sin(a), radius + radius * math.cos(a)
end

local m = { name = "track", bodies = {}, constraints = {},
            settings = { iterations = 10 } }

local pins = {}
for i = 0, n - 1 do
  local x, z = loop_point(i * pitch)
  pins[i] = { x, 0.0, z + 0.3 }                  -- loop lifted 0.3 m off the ground
end

for i = 0, n - 1 do
  local p, q = pins[i], pins[(i + 1) % n]
  local dx, dz = q[1] - p[1], q[3] - p[3]
  local angle = math.atan(dz, dx)                -- plate's pitch about y
  m.bodies[#m.bodies + 1] = {
    name = string.format("plate%02d", i),
    mass = plate_mass,
    box = { pitch, width, thickness },
    pos = { (p[1] + q[1]) / 2, 0.0, (p[3] + q[3]) / 2 },
    -- rotation about y by -angle: the plate's x axis along the chord
    rot = { math.cos(-angle / 2), 0.0, math.sin(-angle / 2), 0.0 },
  }
end

for i = 0, n - 1 do
  m.constraints[#m.constraints + 1] = {
    name = string.format("pin%02d", i),
    type = "hinge",
    a = string.format("plate%02d", (i - 1) % n),
    b = string.format("plate%02d", i),
    anchor = pins[i],
    axis = { 0, 1, 0 },
  }
end

return m
