-- a hub carrying 12 hinges: shattered; a ring through the spokes: fill
local m = { name = "hub", bodies = { { name = "hub", mass = 50, sphere = 0.5, pos = { 0, 0, 0 } } }, constraints = {} }
for i = 1, 12 do
  local a = 2 * math.pi * i / 12
  m.bodies[#m.bodies + 1] = { name = "s" .. i, mass = 1, box = { 0.1, 0.1, 0.5 }, pos = { math.cos(a), math.sin(a), 0 } }
  m.constraints[#m.constraints + 1] = { name = "h" .. i, type = "hinge", a = "hub", b = "s" .. i,
                                        anchor = { 0.5 * math.cos(a), 0.5 * math.sin(a), 0 }, axis = { 0, 0, 1 } }
  if i > 1 then
    m.constraints[#m.constraints + 1] = { name = "r" .. i, type = "rod", a = "s" .. (i - 1), b = "s" .. i,
                                          anchor_a = { math.cos(a - 0.5), math.sin(a - 0.5), 0 }, anchor_b = { math.cos(a), math.sin(a), 0 } }
  end
end
m.constraints[#m.constraints + 1] = { name = "pin", type = "ball", a = "world", b = "hub", anchor = { 0, 0, 0 } }
return m
