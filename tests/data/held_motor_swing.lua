-- held_motor_swing.lua: a 1 m arm hinged to the world, released horizontal, with
-- a strut hanging from its tip on a cylindrical joint whose turn is held by a
-- speed-0 motor; test_inequality.c
return {
  name = "held_motor_swing",
  bodies = {
    { name = "arm",   mass = 5,  box = {1.0, 0.1, 0.1}, pos = {0.5, 0, 1} },
    { name = "strut", mass = 10, box = {0.1, 0.1, 0.8}, pos = {1.0, 0, 0.6} },
  },
  constraints = {
    { name = "pivot", type = "hinge", a = "world", b = "arm", anchor = {0, 0, 1}, axis = {0, 1, 0} },
    { name = "sleeve", type = "cylindrical", a = "arm", b = "strut", anchor = {1, 0, 1}, axis = {0, 1, 0} },
    { name = "hold", type = "motor", joint = "sleeve", axis = "angular", speed = 0, max_force = 10000 },
    { name = "slide", type = "motor", joint = "sleeve", axis = "linear", speed = 0, max_force = 10000 },
  },
}
