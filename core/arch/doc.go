// Package arch holds no code: its test checks that the module's imports follow the layer
// table in docs/architecture.md (TestImportsFollowTheLayers).
package arch
