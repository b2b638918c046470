import path from 'node:path';
import { InMemoryStore, LanceStore, ResidentBudget } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';
import { storeAcceptance } from './store-acceptance.js';

storeAcceptance('InMemoryStore', async () => new InMemoryStore());
storeAcceptance('LanceStore', async () => new LanceStore({ dir: path.join(tempDir('lance-'), 'db'), dim: 16 }));
storeAcceptance('LanceStore searched through its indexes', async () => new LanceStore({ dir: path.join(tempDir('lance-'), 'db'), dim: 16, residentBudget: new ResidentBudget(0) }));
