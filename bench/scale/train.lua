-- train.lua: a road train of CARS carts (default 10), each a chassis on
-- AXLES axles (default 3: six wheels on hinges, 30 rows on one body, so
-- every chassis is a candidate for shattering) hitched to the next cart by
-- a ball joint: the scaling series of `make bench` (bench/scale.sh) where
-- the shattering search, not the ordering, dominates. z is up, SI units.
local n = CARS or 10
local axles = AXLES or 3
local len, wheel_r, half = 1.2 * axles, 0.45, 1.1
local m = { name = "train" .. n, bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x end
local rot = { math.sqrt(0.5), -math.sqrt(0.5), 0, 0 }
for c = 1, n do
  local x0 = (c - 1) * (len + 1.0)
  local chassis = "cart" .. c
  add(m.bodies, { name = chassis, mass = 2000, box = { len, 2.0, 0.6 }, pos = { x0, 0, 1.0 } })
  for i = 1, axles do
    local x = x0 - len / 2 + (i - 0.5) * len / axles
    for _, side in ipairs({ { "L", half }, { "R", -half } }) do
      local w = chassis .. "_wheel" .. i .. side[1]
      add(m.bodies, { name = w, mass = 80, cylinder = { wheel_r, 0.3 }, pos = { x, side[2], wheel_r }, rot = rot })
      add(m.constraints, { name = w .. "_axle", type = "hinge", a = chassis, b = w,
                           anchor = { x, side[2], wheel_r }, axis = { 0, 1, 0 } })
    end
  end
  if c > 1 then
    add(m.constraints, { name = "hitch" .. c, type = "ball", a = "cart" .. (c - 1), b = chassis,
                         anchor = { x0 - len / 2 - 0.5, 0, 1.0 } })
  end
end
return m
