/** `GET {SERVICE_BASE_URL}/api/v1/verify`: is the API key valid, and for which project? */
import { Agent, request } from 'undici';

export type VerifyResult =
  | { state: 'valid'; key_id: string | null; org_id: string | null; project_id: string | null; scopes: string[] }
  | { state: 'unauthorized'; status: number; message: string }
  | { state: 'unreachable'; message: string }
  | { state: 'unexpected'; status: number; message: string };

const TIMEOUT_MS = 5000;

export async function verifyKey(baseUrl: string, apiKey: string, timeoutMs = TIMEOUT_MS): Promise<VerifyResult> {
  let status: number;
  let text: string;
  const agent = new Agent({ connect: { timeout: timeoutMs } });
  try {
    const res = await request(`${baseUrl}/api/v1/verify`, { method: 'GET', headers: { authorization: `Bearer ${apiKey}` }, dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    return { state: 'unreachable', message: (err as Error).message };
  } finally {
    await agent.close().catch(() => {});
  }
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: keep the status
  }
  const message = String((body.error as { message?: unknown } | undefined)?.message ?? text.slice(0, 200));
  if (status === 401 || status === 403) return { state: 'unauthorized', status, message };
  if (status !== 200 || body.valid !== true) return { state: 'unexpected', status, message };
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return { state: 'valid', key_id: str(body.key_id), org_id: str(body.org_id), project_id: str(body.project_id), scopes: Array.isArray(body.scopes) ? body.scopes.map(String) : [] };
}
