--% -- world.h.tpl -- the mechanism part of the generated header (P.world,
--% -- gen/emit_world.c): names of bodies and constraints, the ground
--% -- plane, the description, settings and create function.
--% local W, M, I = P.world, P.macro, P.ident

$(P.mechanism_mark)(bodies, constraints, settings) ----------------------*/

/* The bodies and constraints of $(ctext(P.name)) in mechanism order: their indices in
 * $(I)_desc and for the world's accessors (rt_world_body_pose,
 * rt_world_set_motor, rt_world_set_drive, ...), counted from 0 (left
 * implicit, so that adding one changes one line). */
enum $(I)_body {
--% for i, b in ipairs(W.bodies) do
    $(b.enum),
--% end
    $(M)_BODY_COUNT
};
enum $(I)_joint {
--% for i, j in ipairs(W.joints) do
    $(j.enum),
--% end
    $(M)_JOINT_COUNT
};

/* The mechanism's ground plane (settings.ground; $(M)_GROUND 0: none). A
 * world has no ground of its own: a game feeds the contacts with it before
 * each step, e.g. from rt_world_ground_contacts(w, $(M)_GROUND_HEIGHT,
 * $(M)_GROUND_FRICTION, margin, buf, cap) to rt_world_set_contacts, and
 * with $(M)_COLLIDE (settings.collide) those of rt_world_body_contacts too. */
#define $(M)_GROUND $(W.ground)
#define $(M)_GROUND_HEIGHT $(W.ground_height)
#define $(M)_GROUND_FRICTION $(W.ground_friction)
#define $(M)_COLLIDE $(W.collide)

/* The mechanism: its bodies at their initial state and every constraint in
 * body frames (anchors, axes, limits, motors, drives), as ldlsim builds it
 * from the mechanism file. */
extern const rt_world_desc $(I)_desc;
/* The mechanism file's settings (rt_settings_default, then its settings). */
extern const rt_settings $(I)_settings;
/* A world of the mechanism stepped with $(I)_program, with the given
 * settings (NULL: $(I)_settings); NULL on failure, with *status (if status
 * is not NULL) saying why. rt_world_create(&$(I)_desc, &$(I)_program,
 * settings, status, err, errlen) does the same with a message. */
rt_world *$(I)_create(const rt_settings *settings, rt_status *status);
