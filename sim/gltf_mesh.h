/* gltf_mesh.h -- triangle meshes of the body shapes in body coordinates
 * (gltf.c writes them into a .glb): counter-clockwise triangles seen from
 * outside, unit normals per vertex. Boxes have flat faces; spheres,
 * cylinders and capsules are lathes about the body z axis (GLTF_MESH_SEGMENTS
 * around). The axis cross is line segments with a colour per vertex. */
#ifndef LDLPGS_SIM_GLTF_MESH_H
#define LDLPGS_SIM_GLTF_MESH_H

#include "mech.h"

#define GLTF_MESH_SEGMENTS 24

typedef struct gltf_mesh {
  int lines;            /* 1: line segments (the axis cross), attr = colours */
  int nv, ni;           /* vertices, indices */
  float *pos;           /* nv x 3 */
  float *attr;          /* nv x 3: normals, or colours for lines */
  unsigned *idx;        /* ni: triangles (3 each) or segments (2 each) */
} gltf_mesh;

/* The mesh of a shape with size as in mech_body.shape_size; MECH_SHAPE_NONE
 * is the axis cross with arms of half-length size[0]. Returns 0, or -1 out
 * of memory (*out then holds nothing to free). */
int gltf_mesh_build(mech_shape shape, const double size[3], gltf_mesh *out);
void gltf_mesh_free(gltf_mesh *g);

#endif
