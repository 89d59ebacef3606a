// SPDX-License-Identifier: MIT
// The shared ERC-1155 of all automated markets' outcome shares; permanent, so trader approvals never need renewing.
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IOutcomeToken} from "./interfaces/IOutcomeToken.sol";
import {OutcomeIds} from "./libraries/OutcomeIds.sol";

/// @title OutcomeToken
/// @notice See IOutcomeToken for the id scheme and who may mint. The owner can authorise factories and set the
/// metadata URI; it cannot mint, burn, move shares or unregister a market.
contract OutcomeToken is ERC1155, Ownable2Step, IOutcomeToken {
    struct Registration {
        address factory;
        uint8 outcomeCount;
    }

    /// @inheritdoc IOutcomeToken
    mapping(address factory => bool) public isFactory;
    mapping(address market => Registration) private _markets;

    /// @param owner_ May authorise factories and set the URI.
    constructor(address owner_) ERC1155("") Ownable(owner_) {}

    /// @inheritdoc IOutcomeToken
    function setFactory(address factory, bool authorised) external onlyOwner {
        if (factory == address(0)) revert ZeroAddress();
        isFactory[factory] = authorised;
        emit FactorySet(factory, authorised);
    }

    /// @notice Owner only; ERC-1155 metadata URI with {id} substitution.
    function setURI(string calldata uri_) external onlyOwner {
        _setURI(uri_);
        emit UriSet(uri_);
    }

    /// @inheritdoc IOutcomeToken
    function registerMarket(address market, uint8 outcomeCount) external {
        if (!isFactory[msg.sender]) revert NotFactory(msg.sender);
        if (market == address(0)) revert ZeroAddress();
        if (outcomeCount < 2) revert InvalidOutcomeCount(outcomeCount);
        if (_markets[market].outcomeCount != 0) revert MarketAlreadyRegistered(market);
        _markets[market] = Registration({factory: msg.sender, outcomeCount: outcomeCount});
        emit MarketRegistered(market, msg.sender, outcomeCount);
    }

    /// @inheritdoc IOutcomeToken
    function mint(address to, uint8 outcome, uint256 amount) external {
        _mint(to, _ownId(outcome), amount, "");
    }

    /// @inheritdoc IOutcomeToken
    function burn(address from, uint8 outcome, uint256 amount) external {
        _burn(from, _ownId(outcome), amount);
    }

    /// @inheritdoc IOutcomeToken
    function outcomeCountOf(address market) external view returns (uint8) {
        return _markets[market].outcomeCount;
    }

    /// @inheritdoc IOutcomeToken
    function factoryOf(address market) external view returns (address) {
        return _markets[market].factory;
    }

    /// @inheritdoc IOutcomeToken
    function tokenId(address market, uint8 outcome) external pure returns (uint256) {
        return OutcomeIds.encode(market, outcome);
    }

    /// @dev The caller's own id for `outcome`; reverts unless the caller is a registered market.
    function _ownId(uint8 outcome) private view returns (uint256) {
        uint8 count = _markets[msg.sender].outcomeCount;
        if (count == 0) revert NotMarket(msg.sender);
        if (outcome >= count) revert InvalidOutcome(outcome, count);
        return OutcomeIds.encode(msg.sender, outcome);
    }
}
