import { diskStorage } from '../support/disk-storage.js';
import { storageContract } from './storage-contract.js';

storageContract('disk', diskStorage(), { sandboxes: true, selfService: true });
