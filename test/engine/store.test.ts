import path from 'node:path';
import { InMemoryStore, LanceStore } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';
import { storeAcceptance } from './store-acceptance.js';

storeAcceptance('InMemoryStore', async () => new InMemoryStore());
storeAcceptance('LanceStore', async () => new LanceStore({ dir: path.join(tempDir('lance-'), 'db'), dim: 16 }));
