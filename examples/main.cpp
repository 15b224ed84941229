// main.cpp -- the example game: two mechanisms, generated from crane.lua
// and rover.lua when the game is built, stepped for 5 s; it loads nothing at
// run time. Everything a mechanism needs comes from its generated header:
// the world (crane_create), the bodies and joints by name (CRANE_BODY_HOOK,
// ROVER_JOINT_DRIVE_FL, ...) and its ground plane (ROVER_GROUND_*). The
// game's own part is what it does every frame: feed contacts, drive the
// motors, step, read poses. The crane's mechanism part is in files of its
// own (ldlgen --mechanism-out: crane_mech.h, which includes crane.h), so
// that tuning its numbers leaves the solver's file, crane.c, alone.
#include <cstdio>
#include <vector>

#include "crane_mech.h"
#include "rover.h"

namespace {

void print_pose(const char *what, const rt_world *w, int body) {
  rt_pose p;
  rt_world_body_pose(w, body, &p);
  std::printf("  %-14s p (%9.6f, %9.6f, %9.6f)  q (%9.6f, %9.6f, %9.6f, %9.6f)\n", what, p.p[0], p.p[1], p.p[2],
              p.q[0], p.q[1], p.q[2], p.q[3]);
}

// The rover stands on its ground plane: contacts before every step.
void feed_ground(rt_world *w, std::vector<rt_contact> &buf) {
  if (!ROVER_GROUND) return;
  const int cap = static_cast<int>(buf.size());
  const int n = rt_world_ground_contacts(w, ROVER_GROUND_HEIGHT, ROVER_GROUND_FRICTION, 0.02, buf.data(), cap);
  rt_world_set_contacts(w, buf.data(), n < cap ? n : cap);
}

} // namespace

int main() {
  rt_status st = RT_OK;
  rt_world *crane = crane_create(nullptr, &st); // nullptr: the settings of crane.lua
  if (!crane) {
    std::fprintf(stderr, "crane: %s\n", rt_status_message(st));
    return 1;
  }
  rt_world *rover = rover_create(nullptr, &st);
  if (!rover) {
    std::fprintf(stderr, "rover: %s\n", rt_status_message(st));
    rt_world_destroy(crane);
    return 1;
  }

  // the crane slews while its cylinder raises the boom; the rover drives
  rt_world_set_motor(crane, CRANE_JOINT_SLEW_MOTOR, 0.2, 5e4);
  for (int j : {ROVER_JOINT_DRIVE_FL, ROVER_JOINT_DRIVE_FR, ROVER_JOINT_DRIVE_RL, ROVER_JOINT_DRIVE_RR})
    rt_world_set_motor(rover, j, 6.0, 150.0);
  std::vector<rt_contact> contacts(static_cast<size_t>(rover_settings.max_contacts));

  const int steps = static_cast<int>(5.0 / crane_settings.dt + 0.5);
  for (int k = 0; k <= steps; k++) {
    if (k % 60 == 0) {
      std::printf("t = %.2f s\n", k * crane_settings.dt);
      print_pose("crane boom", crane, CRANE_BODY_BOOM);
      print_pose("crane hook", crane, CRANE_BODY_HOOK);
      print_pose("rover chassis", rover, ROVER_BODY_CHASSIS);
    }
    if (k == steps) break;
    feed_ground(rover, contacts);
    if (rt_world_step(crane) != RT_OK || rt_world_step(rover) != RT_OK) {
      std::fprintf(stderr, "a step failed at %d\n", k);
      return 1;
    }
  }
  double pos, ang;
  rt_world_max_error(crane, &pos, &ang);
  std::printf("crane: cylinder %.4f m, largest joint error %.2g m\n", rt_world_joint_length(crane, CRANE_JOINT_LUFF),
              pos);
  rt_world_destroy(crane);
  rt_world_destroy(rover);
  return 0;
}
