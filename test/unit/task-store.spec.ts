import { InMemoryTaskStore } from '../../lib/core/task-store.js';
import { taskStoreContract } from '../fixtures/task-store-contract.js';

const store = new InMemoryTaskStore();
taskStoreContract('InMemoryTaskStore', () => store);
