// Preloaded into a server process by the request-log test (node --import): SIGUSR2 makes
// it crash the way a bug would, with an uncaught exception.
process.on('SIGUSR2', () => {
  throw new Error('a crash provoked by the test (SIGUSR2)');
});
