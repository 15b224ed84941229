-- boom_motor.lua: boom, stick and bucket on hinges, each held by a speed-0 motor
-- with ample torque, a 2000 kg load welded to the 8 kg bucket (250:1); test_inequality.c
return {
  name = "boom",
  bodies = {
    { name = "boom",   mass = 40,  box = {3.0, 0.2, 0.2}, pos = {1.5, 0, 1} },
    { name = "stick",  mass = 20,  box = {2.0, 0.15, 0.15}, pos = {4.0, 0, 1} },
    { name = "bucket", mass = 8,   box = {0.5, 0.3, 0.3}, pos = {5.25, 0, 1} },
    { name = "load",   mass = 2000, box = {0.5, 0.5, 0.5}, pos = {5.5, 0, 0.6} },
  },
  constraints = {
    { name = "h_boom", type = "hinge", a = "world", b = "boom", anchor = {0, 0, 1}, axis = {0, 1, 0} },
    { name = "h_stick", type = "hinge", a = "boom", b = "stick", anchor = {3, 0, 1}, axis = {0, 1, 0} },
    { name = "h_bucket", type = "hinge", a = "stick", b = "bucket", anchor = {5, 0, 1}, axis = {0, 1, 0} },
    { name = "w_load", type = "weld", a = "bucket", b = "load", anchor = {5.5, 0, 0.8} },
    { name = "m_boom", type = "motor", joint = "h_boom", speed = 0, max_force = 350000 },
    { name = "m_stick", type = "motor", joint = "h_stick", speed = 0, max_force = 350000 },
    { name = "m_bucket", type = "motor", joint = "h_bucket", speed = 0, max_force = 350000 },
  },
}
