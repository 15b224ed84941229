-- swinging_chain.lua: 20 equal links (0.1 m, 0.1 kg) on ball joints, hung
-- from the world at one end and released horizontal from rest. z is up, SI.
local n, len = 20, 0.1
local m = { name = "swinging_chain", bodies = {}, constraints = {} }
for i = 1, n do
  m.bodies[i] = { name = "link" .. i, mass = 0.1, cylinder = { 0.01, len }, pos = { (i - 0.5) * len, 0, 0 },
                  rot = { math.sqrt(0.5), 0, math.sqrt(0.5), 0 } }   -- the cylinder's axis along x
  m.constraints[i] = { name = "joint" .. i, type = "ball", a = i == 1 and "world" or "link" .. (i - 1),
                       b = "link" .. i, anchor = { (i - 1) * len, 0, 0 } }
end
return m
