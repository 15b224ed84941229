-- elimination_example.lua: a mechanism whose constraint graph is the talk's
-- 5-node graph elimination example. Two pendulums (left, right) hang from the
-- world on hinges and are coupled by a rod -- a four-bar linkage -- and each
-- carries a bob on a ball joint:
--
--   0 coupler      left  -- right    touches every other constraint
--   1 pivot_left   world -- left     shares 'left' with 0 and 3
--   2 pivot_right  world -- right    shares 'right' with 0 and 4
--   3 bob_left     left  -- bob_l
--   4 bob_right    right -- bob_r
--
-- Eliminating 0 first joins 1, 2, 3, 4 pairwise minus 1-3 and 2-4: four new
-- edges. The order 1, 3, 0, 2, 4 creates none (a perfect elimination order).

local m = { name = "elimination_example", bodies = {}, constraints = {} }
local function add(t, x) t[#t + 1] = x; return x end

add(m.bodies, { name = "left",  mass = 2.0, box = { 0.05, 0.05, 1.0 }, pos = { -0.5, 0, -0.5 } })
add(m.bodies, { name = "right", mass = 2.0, box = { 0.05, 0.05, 1.0 }, pos = {  0.5, 0, -0.5 } })
add(m.bodies, { name = "bob_l", mass = 5.0, sphere = 0.1, pos = { -0.5, 0, -1.1 } })
add(m.bodies, { name = "bob_r", mass = 5.0, sphere = 0.1, pos = {  0.5, 0, -1.1 } })

add(m.constraints, { name = "coupler", type = "rod", a = "left", b = "right",
                     anchor_a = { -0.5, 0, -0.8 }, anchor_b = { 0.5, 0, -0.8 } })
add(m.constraints, { name = "pivot_left", type = "hinge", a = "world", b = "left",
                     anchor = { -0.5, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "pivot_right", type = "hinge", a = "world", b = "right",
                     anchor = { 0.5, 0, 0 }, axis = { 0, 1, 0 } })
add(m.constraints, { name = "bob_left", type = "ball", a = "left", b = "bob_l",
                     anchor = { -0.5, 0, -1.0 } })
add(m.constraints, { name = "bob_right", type = "ball", a = "right", b = "bob_r",
                     anchor = { 0.5, 0, -1.0 } })

return m
