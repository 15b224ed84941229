-- two_hubs.lua: two hubs, each with eight spokes on ball joints and both
-- joined by a hinge, so that both shatter and the hinge sits on a shard of
-- each (test_locality: --keep-order keeps both of its ends).
local m = { name = "two_hubs", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x end
add(m.bodies, { name = "hubA", mass = 10, box = { 0.5, 0.5, 0.5 }, pos = { 0, 0, 1 } })
add(m.bodies, { name = "hubB", mass = 10, box = { 0.5, 0.5, 0.5 }, pos = { 2, 0, 1 } })
add(m.constraints, { name = "anchor", type = "ball", a = "world", b = "hubA", anchor = { 0, 0, 1 } })
add(m.constraints, { name = "bridge", type = "hinge", a = "hubA", b = "hubB", anchor = { 1, 0, 1 }, axis = { 0, 1, 0 } })
for _, h in ipairs({ { "A", 0 }, { "B", 2 } }) do
  for i = 1, 8 do
    local t = 2 * math.pi * i / 8
    local p = { h[2] + 0.6 * math.cos(t), 0.6 * math.sin(t), 1 }
    add(m.bodies, { name = "spoke" .. h[1] .. i, mass = 1, box = { 0.1, 0.1, 0.1 }, pos = p })
    add(m.constraints, { name = "pin" .. h[1] .. i, type = "ball", a = "hub" .. h[1], b = "spoke" .. h[1] .. i,
                         anchor = p })
  end
end
return m
