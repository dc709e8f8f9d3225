// Liveness: answers without touching the database or the gateway (use
// /api/health for readiness). Also the baseline route of the benchmarks.
export const GET = () => Response.json({ ok: true });
