// Run once by compose's mongo-1, when it starts on an empty volume (the image runs
// /docker-entrypoint-initdb.d/ scripts with mongosh, before access control is on):
// one user per service, with readWrite on its own database only, so that a service's
// credentials reach nothing of another's. Names come from the container's environment,
// passwords from the files of its secrets (docker-compose.yml); a missing password stops
// the initialisation.
const passwordOf = (variable) => {
  const file = process.env[`${variable}_FILE`];
  return file ? fs.readFileSync(file, 'utf8').trim() : process.env[variable];
};
const services = [
  { user: 'billing', db: process.env.BILLING_MONGO_DB, password: passwordOf('MONGO_BILLING_PASSWORD') },
  { user: 'catalogue', db: process.env.CATALOGUE_MONGO_DB, password: passwordOf('MONGO_CATALOGUE_PASSWORD') },
  { user: 'sessions', db: process.env.SESSIONS_MONGO_DB, password: passwordOf('MONGO_SESSIONS_PASSWORD') },
];
for (const { user, db: name, password } of services) {
  if (!name || !password) throw new Error(`the database name or password of ${user} is not set`);
  db.getSiblingDB(name).createUser({ user, pwd: password, roles: [{ role: 'readWrite', db: name }] });
  print(`created user ${user} with readWrite on ${name}`);
}
// The metrics exporter signs in with its certificate (npm run certs: mongodb-exporter.pem) and only reads the
// server's state: clusterMonitor, and the oplog's size on local.
db.getSiblingDB('$external').createUser({
  user: 'CN=mongodb-exporter',
  roles: [
    { role: 'clusterMonitor', db: 'admin' },
    { role: 'read', db: 'local' },
  ],
});
print('created the X.509 user CN=mongodb-exporter with clusterMonitor');
