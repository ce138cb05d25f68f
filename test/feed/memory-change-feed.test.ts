import { memoryStorage } from '../support/http-server.js';
import { changeFeedSuite } from './change-feed-suite.js';

changeFeedSuite('memory', memoryStorage, true);
