import { diskStorage } from '../support/disk-storage.js';
import { storageContract } from './storage-contract.js';
import { changeLogContract } from './change-log-contract.js';

storageContract('disk', diskStorage(), { sandboxes: true, selfService: true });
changeLogContract('disk', diskStorage(), true);
