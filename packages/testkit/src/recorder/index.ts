export * from './fixture.js';
