import { defineGauge } from '../metrics/metric.js';

/** The process's connections to its database, read at each scrape (SQLite: its one write connection). */
export const dbConnections = defineGauge({
  name: 'ownproof_db_connections',
  help: 'Connections this process holds to its database, by state: in_use (running a query or a transaction), idle. SQLite: the one write connection.',
  labelNames: ['state'],
  collect: ({ connections }) => {
    if (!connections) return [];
    const { open, idle } = connections();
    return [
      { labels: { state: 'in_use' }, value: open - idle },
      { labels: { state: 'idle' }, value: idle },
    ];
  },
});

export const dbConnectionsMax = defineGauge({
  name: 'ownproof_db_connections_max',
  help: 'The most connections this process opens to its database (its pool size; 1 on SQLite).',
  labelNames: [],
  collect: ({ connections }) => (connections ? [{ labels: {}, value: connections().max }] : []),
});

export const dbWaiting = defineGauge({
  name: 'ownproof_db_waiting_queries',
  help: 'Queries and transactions of this process waiting for a free database connection.',
  labelNames: [],
  collect: ({ connections }) => (connections ? [{ labels: {}, value: connections().waiting }] : []),
});
