-- excavator.lua: a hydraulic excavator's arm holding a heavy load. On a
-- fixed house, the boom (1500 kg), the stick (800 kg) and the bucket
-- (600 kg) turn on hinges (axis -y, so that a positive angle raises the
-- part: it turns +x towards +z). The hydraulics are modelled as what they
-- do to each hinge: a `motor` at speed 0 with ample torque holds it where
-- it is (350 kN m at the boom, which needs about 230 kN m to carry the
-- arm and the load; 120 kN m at the stick, 40 kN m at the bucket), and a
-- commanded speed moves it. Each hinge also has an `angular_limit`, the
-- cylinders' strokes. Under the bucket a 10 kg lifting hook hangs on a
-- ball joint and a 2500 kg load hangs on the hook by another: the arm
-- carries the load through its lightest body, a mass ratio of 250:1.
-- Motors and limits are not equality rows: they leave the generated
-- program's structure unchanged. mechanisms/excavator.drive holds the load
-- still, lifts it with the boom and holds it again.
-- z is up, SI units; the arm reaches along +x. Points below are {x, z}.

local m = { name = "excavator", bodies = {}, constraints = {}, settings = { probe = "load" } }
local function add(t, x) t[#t + 1] = x; return x end
local AXIS = { 0, -1, 0 }   -- positive rotation raises: +x turns towards +z

local function P(p) return { p[1], 0, p[2] } end
local function mid(p, q) return { (p[1] + q[1]) / 2, (p[2] + q[2]) / 2 } end
-- a bar of the given mass from p to q (x-z plane): a box along the bar
local function bar(name, mass, p, q, width, height)
  local dx, dz = q[1] - p[1], q[2] - p[2]
  local len = math.sqrt(dx * dx + dz * dz)
  local pitch = math.atan(dz, dx)           -- about -y
  return add(m.bodies, { name = name, mass = mass, box = { len, width, height }, pos = P(mid(p, q)),
                         rot = { math.cos(pitch / 2), 0, -math.sin(pitch / 2), 0 } })
end

local boom_foot, boom_tip = { 0.6, 1.6 }, { 4.6, 5.6 }  -- the boom rises at 45 degrees
local stick_tip = { 5.6, 2.9 }                          -- the stick reaches down and out
local eye = { 5.9, 2.0 }                                -- the lifting eye under the bucket

add(m.bodies, { name = "house", fixed = true, box = { 3.0, 2.5, 1.6 }, pos = { -0.4, 0, 0.8 } })  -- on z = 0
bar("boom", 1500, boom_foot, boom_tip, 0.5, 0.6)
bar("stick", 800, boom_tip, stick_tip, 0.4, 0.4)
bar("bucket", 600, stick_tip, eye, 1.0, 0.8)
add(m.bodies, { name = "hook", mass = 10, box = { 0.1, 0.1, 0.3 }, pos = { eye[1], 0, eye[2] - 0.15 } })
add(m.bodies, { name = "load", mass = 2500, box = { 1.2, 1.2, 0.9 }, pos = { eye[1], 0, eye[2] - 0.3 - 0.45 } })

local joints = {
  -- name, body a, body b, pivot, hold torque (N m), stroke (rad)
  { "boom", "house", "boom", boom_foot, 350e3, -0.5, 0.6 },
  { "stick", "boom", "stick", boom_tip, 120e3, -0.6, 0.6 },
  { "bucket", "stick", "bucket", stick_tip, 40e3, -0.8, 0.8 },
}
for _, j in ipairs(joints) do
  local name = j[1]
  add(m.constraints, { name = name .. "_pin", type = "hinge", a = j[2], b = j[3], anchor = P(j[4]), axis = AXIS })
  add(m.constraints, { name = name .. "_motor", type = "motor", joint = name .. "_pin", axis = "angular",
                       speed = 0, max_force = j[5] })
  add(m.constraints, { name = name .. "_stroke", type = "angular_limit", hinge = name .. "_pin",
                       lower = j[6], upper = j[7] })
end
add(m.constraints, { name = "hook_eye", type = "ball", a = "bucket", b = "hook", anchor = P(eye) })
add(m.constraints, { name = "load_sling", type = "ball", a = "hook", b = "load", anchor = { eye[1], 0, eye[2] - 0.3 } })

return m
