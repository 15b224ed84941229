--% -- world.c.tpl -- the mechanism part of the generated .c file (P.world,
--% -- gen/emit_world.c): the world description, the settings, the create
--% -- function. Every number is written so that it reads back exactly;
--% -- fields left out are zero.
--% local W, M, I = P.world, P.macro, P.ident

$(P.mechanism_mark)(bodies, constraints, settings) ----------------------*/

static const rt_body_desc mech_bodies[$(M)_BODY_COUNT] = {
--% for _, b in ipairs(W.bodies) do
    [$(b.enum)] = {
--%   for _, f in ipairs(b.fields) do
        $(f.k) = $(f.v),
--%   end
    },
--% end
};
--% if #W.joints > 0 then

static const rt_joint_desc mech_joints[$(M)_JOINT_COUNT] = {
--%   for _, j in ipairs(W.joints) do
    [$(j.enum)] = {
--%     for _, f in ipairs(j.fields) do
        $(f.k) = $(f.v),
--%     end
    },
--%   end
};
--% end

const rt_world_desc $(I)_desc = {
    .nbody = $(M)_BODY_COUNT,
    .bodies = mech_bodies,
    .njoint = $(M)_JOINT_COUNT,
    .joints = $(#W.joints > 0 and "mech_joints" or "NULL"),
};

const rt_settings $(I)_settings = {
--% for _, f in ipairs(W.settings) do
    $(f.k) = $(f.v),
--% end
};

rt_world *$(I)_create(const rt_settings *settings, rt_status *status) {
  if (settings == NULL) settings = &$(I)_settings;
  return rt_world_create(&$(I)_desc, &$(I)_program, settings, status, NULL, 0);
}
