-- rope_weight.lua: a 100 kg weight on a 1 m rope from the tip of a light
-- boom (2 kg) hinged to the world, released 1 m to the side of the tip: it
-- falls until the rope is taut and swings on it (test_inequality.c).
return {
  name = "rope_weight",
  bodies = {
    { name = "boom", mass = 2, box = {2.0, 0.05, 0.05}, pos = {1.0, 0, 3} },
    { name = "weight", mass = 100, box = {0.2, 0.2, 0.2}, pos = {2.7, 0, 2.3} },
  },
  constraints = {
    { name = "pivot", type = "hinge", a = "world", b = "boom", anchor = {0, 0, 3}, axis = {0, 1, 0} },
    { name = "hold", type = "motor", joint = "pivot", speed = 0, max_force = 100000 },
    { name = "rope", type = "rope", a = "boom", b = "weight", anchor_a = {2.0, 0, 3}, anchor_b = {2.7, 0, 2.3}, length = 1.0 },
  },
}
