/** jest: TypeScript logic of the extension, in jsdom, no kernel and no JupyterLab. */
module.exports = {
  testEnvironment: 'jsdom',
  setupFiles: ['<rootDir>/jest.setup.js'],
  roots: ['<rootDir>/src'],
  testMatch: ['**/__tests__/**/*.spec.ts'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  moduleNameMapper: {
    // Graphviz's CommonJS build (the ESM build is used in the browser bundle)
    '^@viz-js/viz$': '<rootDir>/node_modules/@viz-js/viz/dist/viz.cjs'
  }
};
