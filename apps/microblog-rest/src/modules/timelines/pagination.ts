/**
 * What `timeline.service.ts` imports from here; paging lives in `src/http/link-pagination.ts`
 * (import it from there: this file goes once the timeline service does).
 */
export { pageClauses as pageSql, type PageRequest } from '../../http/link-pagination.js';
