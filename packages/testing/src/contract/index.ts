export { runProviderContract, type ContractSubject, type ContractFailure, type ContractOperation, type ContractInputOverride } from './provider-contract.js';
