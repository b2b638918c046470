/** The help screen (`?`): every key of every screen, in two columns when there is room. */
import { Box, Text } from 'ink';
import { cell } from './format.js';
import { KEY_REFERENCE, type KeySection } from './help.js';
import { frameSize, CHROME_ROWS, PANEL_ROWS, type Size } from './layout.js';
import { Panel } from './panel.js';

const KEY_COLS = 10;

function Sections({ sections }: { sections: readonly KeySection[] }) {
  return (
    <>
      {sections.flatMap((s, i) => [
        ...(i > 0 ? [<Text key={`${s.title}-gap`}> </Text>] : []),
        <Text key={s.title} bold wrap="truncate">
          {s.title}
        </Text>,
        ...s.keys.map((k) => (
          <Text key={`${s.title}-${k.key}`} wrap="truncate">
            <Text bold>{cell(k.key, KEY_COLS)}</Text>
            {` ${k.label}`}
          </Text>
        )),
      ])}
    </>
  );
}

export function HelpScreen({ size }: { size: Size }) {
  const { width, height } = frameSize(size);
  const rows = Math.max(1, height - CHROME_ROWS - PANEL_ROWS);
  const twoColumns = width >= 60;
  const split = 2;
  if (!twoColumns) {
    return (
      <Panel title="Keys (esc or ? closes)" width={width} rows={rows}>
        <Sections sections={KEY_REFERENCE} />
      </Panel>
    );
  }
  const left = Math.floor(width / 2);
  return (
    <Box>
      <Panel title="Keys (esc or ? closes)" width={left} rows={rows}>
        <Sections sections={KEY_REFERENCE.slice(0, split)} />
      </Panel>
      <Panel title="Keys" width={width - left} rows={rows}>
        <Sections sections={KEY_REFERENCE.slice(split)} />
      </Panel>
    </Box>
  );
}
