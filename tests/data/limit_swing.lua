-- limit_swing.lua: a light arm hinged to the world with a 50 kg weight hinged
-- at its tip, released horizontal; the arm's hinge stops at +-0.5 rad, so the
-- weight swings hard into the stop (test_inequality.c).
return {
  name = "limit_swing",
  bodies = {
    { name = "arm", mass = 1, box = {1.0, 0.05, 0.05}, pos = {0.5, 0, 2} },
    { name = "weight", mass = 50, box = {0.2, 0.2, 0.2}, pos = {1.0, 0, 1.8} },
  },
  constraints = {
    { name = "pivot", type = "hinge", a = "world", b = "arm", anchor = {0, 0, 2}, axis = {0, 1, 0} },
    { name = "tip", type = "hinge", a = "arm", b = "weight", anchor = {1.0, 0, 2}, axis = {0, 1, 0} },
    { name = "stop", type = "angular_limit", hinge = "pivot", lower = -0.5, upper = 0.5 },
  },
}
