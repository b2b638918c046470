/**
 * NO_COLOR: with colours available (FORCE_COLOR, set before Ink loads), the default theme writes
 * colour codes and the NO_COLOR theme writes none.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { NOW, statusFixture } from './fixtures.js';

process.env.FORCE_COLOR = '1';
const { render } = await import('ink-testing-library');
const { DashboardScreen } = await import('../../tui/dashboard-screen.js');
const { dashboardModel } = await import('../../tui/dashboard-model.js');
const { readStatus } = await import('../../tui/status-shape.js');
const { ThemeContext, themeFor } = await import('../../tui/theme.js');

/** SGR colour parameters: foreground and background, basic, bright, 256 and true colour. */
// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;

function frame(env: Record<string, string>): string {
  const model = dashboardModel(readStatus(statusFixture({ last_error: { at: '2026-05-04T11:00:00Z', message: 'flush failed' } })), NOW);
  return render(
    <ThemeContext.Provider value={themeFor(env)}>
      <DashboardScreen model={model} selected={0} size={{ columns: 80, rows: 24 }} />
    </ThemeContext.Provider>,
  ).lastFrame()!;
}

it('writes colour codes by default and none under NO_COLOR', () => {
  assert.match(frame({}), COLOUR, 'the default theme is coloured (so this test can fail)');
  const plain = frame({ NO_COLOR: '1' });
  assert.doesNotMatch(plain, COLOUR);
  assert.ok(plain.includes('flush failed'));
});
