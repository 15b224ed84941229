// test_cxx.cpp -- the runtime and generated files from C++17 (g++ -Wall
// -Wextra -Wpedantic -Werror): every public header compiles as C++ and
// declares C linkage, and two generated files (the committed
// generated/buggy.c and generated/scissor_lift.c, compiled as C) link into
// one C++ program. Their worlds are made through BUGGY_create and
// scissor_lift_create, stepped on the ground their headers describe, driven
// and read by the enum names: the buggy's rear motors by
// BUGGY_JOINT_DRIVE_REARL/R, its body by BUGGY_BODY_BODY; the lift's
// platform by SCISSOR_LIFT_BODY_PLATFORM. Prints "N passed, M failed".
#include "rt.h"
#include "rt_batch.h"
#include "rt_joint_type.h"
#include "rt_world.h"

#include "buggy.h"
#include "scissor_lift.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

int passed = 0, failed = 0;

void check(bool ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    std::printf("FAILED: %s\n", what);
  }
}

// Ground contacts before every step, as the header says a game does.
void ground(rt_world *w, double height, double friction, std::vector<rt_contact> &buf) {
  const int n = rt_world_ground_contacts(w, height, friction, 0.02, buf.data(), static_cast<int>(buf.size()));
  rt_world_set_contacts(w, buf.data(), n < static_cast<int>(buf.size()) ? n : static_cast<int>(buf.size()));
}

void buggy_drives() {
  rt_status st = RT_ERR_INPUT;
  rt_world *w = buggy_create(nullptr, &st);
  check(w != nullptr && st == RT_OK, "buggy_create(nullptr, &st) makes a world");
  if (!w) return;
  check(rt_world_body_count(w) == BUGGY_BODY_COUNT, "the world has BUGGY_BODY_COUNT bodies");
  check(buggy_desc.njoint == BUGGY_JOINT_COUNT, "buggy_desc has BUGGY_JOINT_COUNT joints");
  check(rt_world_settings(w)->dt == buggy_settings.dt, "the world runs the file's settings");
  check(rt_world_set_motor(w, BUGGY_JOINT_DRIVE_REARL, 12.0, 400.0) == RT_OK &&
            rt_world_set_motor(w, BUGGY_JOINT_DRIVE_REARR, 12.0, 400.0) == RT_OK,
        "the rear motors take a speed by name");
  check(rt_world_set_motor(w, BUGGY_JOINT_KINGPINL, 1.0, 1.0) == RT_ERR_INPUT, "a hinge is no motor");
  rt_pose start, end;
  rt_world_body_pose(w, BUGGY_BODY_BODY, &start);
  std::vector<rt_contact> buf(static_cast<size_t>(buggy_settings.max_contacts));
  bool ok = true;
  for (int k = 0; k < 120; k++) {
    if (BUGGY_GROUND) ground(w, BUGGY_GROUND_HEIGHT, BUGGY_GROUND_FRICTION, buf);
    ok = ok && rt_world_step(w) == RT_OK && rt_world_step_info(w)->factor_status == -1;
  }
  check(ok, "120 steps, every one factored");
  rt_world_body_pose(w, BUGGY_BODY_BODY, &end);
  const double dx = end.p[0] - start.p[0], dy = end.p[1] - start.p[1];
  std::printf("buggy: body from (%.3f, %.3f, %.3f) to (%.3f, %.3f, %.3f) in 2 s\n", start.p[0], start.p[1],
              start.p[2], end.p[0], end.p[1], end.p[2]);
  check(std::sqrt(dx * dx + dy * dy) > 1.0, "the buggy drives over a metre in 2 s");
  double pos, ang;
  rt_world_max_error(w, &pos, &ang);
  check(pos < 1e-3, "its joints hold within 1 mm");
  rt_world_destroy(w);
}

void lift_rises() {
  rt_settings s = scissor_lift_settings; // a copy, changed: the create function takes any settings
  s.iterations = 12;
  rt_world *w = scissor_lift_create(&s, nullptr);
  check(w != nullptr, "scissor_lift_create(&settings, nullptr) makes a world");
  if (!w) return;
  check(rt_world_settings(w)->iterations == 12, "with the settings given");
  rt_pose start, end;
  rt_world_body_pose(w, SCISSOR_LIFT_BODY_PLATFORM, &start);
  std::vector<rt_contact> buf(static_cast<size_t>(s.max_contacts));
  for (int k = 0; k < 120; k++) {
    if (SCISSOR_LIFT_GROUND) ground(w, SCISSOR_LIFT_GROUND_HEIGHT, SCISSOR_LIFT_GROUND_FRICTION, buf);
    rt_world_step(w);
  }
  rt_world_body_pose(w, SCISSOR_LIFT_BODY_PLATFORM, &end);
  std::printf("scissor_lift: platform from z %.3f to %.3f in 2 s, rod %.4f m\n", start.p[2], end.p[2],
              rt_world_joint_length(w, SCISSOR_LIFT_JOINT_LIFT));
  check(end.p[2] > start.p[2] + 0.1, "the driven rod raises the platform");
  rt_world_destroy(w);
}

} // namespace

int main() {
  // the C names keep C linkage (a C++ name would not link against the C library)
  const rt_program *p = &buggy_program;
  check(p->nbody == BUGGY_BODY_COUNT && BUGGY_DIM == p->dim, "buggy_program's sizes");
  check(rt_joint_type_def_of(RT_HINGE) != nullptr, "rt_joint_type.h links");
  buggy_drives();
  lift_rises();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
